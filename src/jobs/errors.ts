import { ConflictError, InvalidRequestError, NotFoundError } from '../errors.ts';

export class SourceNotFoundError extends NotFoundError {
  override readonly code = 'source_not_found';
  constructor(name: string) {
    super(`No source named "${name}"`);
  }
}

export class SourceDisabledError extends InvalidRequestError {
  override readonly code = 'source_disabled';
  constructor(name: string) {
    super(`The source "${name}" is disabled; enable it in sources.yml to sync it`);
  }
}

export class SyncInProgressError extends ConflictError {
  override readonly code = 'sync_in_progress';
  constructor(name: string) {
    super(`A sync of "${name}" is already queued or running`);
  }
}

export class SourceTypeNotSupportedError extends InvalidRequestError {
  override readonly code = 'source_type_not_supported';
  constructor(name: string, type: string, why = `type ${type}, which this version of Quarry cannot sync yet`) {
    super(`The source "${name}" has ${why}`);
  }
}
