import { ConflictError, NotFoundError, QuarryError } from '../errors.ts';

export class ModelNotFoundError extends NotFoundError {
  override readonly code = 'model_not_found';
  constructor(name: string) {
    super(`No model named "${name}"`);
  }
}

export class RunNotFoundError extends NotFoundError {
  override readonly code = 'run_not_found';
  constructor(id: number) {
    super(`No model run has the job id ${String(id)}`);
  }
}

export class RunInProgressError extends ConflictError {
  override readonly code = 'run_in_progress';
  constructor(name: string) {
    super(`A run touching "${name}" is already queued or running`);
  }
}

export class DocsGenerationError extends QuarryError {
  readonly code = 'docs_generation_failed';
  constructor(reason: string) {
    super(`dbt docs generate failed: ${reason}`);
  }
}
