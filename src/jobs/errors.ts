import leven from 'leven';
import { ConflictError, InvalidRequestError, NotFoundError } from '../errors.ts';

/** A name a person probably meant to type: at most a third of its letters (and 3) away from one of `names`. */
function closestName(name: string, names: readonly string[]): string | undefined {
  const allowed = Math.min(3, Math.ceil(name.length / 3));
  const [closest] = names.map((candidate) => ({ candidate, distance: leven(name.toLowerCase(), candidate.toLowerCase()) }))
    .filter(({ distance }) => distance <= allowed).sort((a, b) => a.distance - b.distance);
  return closest?.candidate;
}

export class SourceNotFoundError extends NotFoundError {
  override readonly code = 'source_not_found';
  /** `known`: the project's source names, the closest of which the message suggests. */
  constructor(name: string, known: readonly string[] = []) {
    const suggestion = closestName(name, known);
    super(`No source named "${name}"${suggestion === undefined ? '' : `; did you mean "${suggestion}"?`}`);
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

export class SyncNotFoundError extends NotFoundError {
  override readonly code = 'sync_not_found';
  constructor(jobId: number) {
    super(`No sync job ${String(jobId)}`);
  }
}

export class SyncOfAnotherSourceError extends InvalidRequestError {
  override readonly code = 'sync_of_another_source';
  constructor(jobId: number, source: string, actual: string) {
    super(`The job ${String(jobId)} synced "${actual}", not "${source}"`);
  }
}

/** The sync left no snapshot to go back from: it failed or was interrupted, so the data is already as before it. */
export class SyncCommittedNothingError extends InvalidRequestError {
  override readonly code = 'sync_committed_nothing';
  constructor(jobId: number) {
    super(`The sync ${String(jobId)} committed nothing to the warehouse, so there is nothing to undo`);
  }
}

export class SnapshotExpiredError extends ConflictError {
  override readonly code = 'snapshot_expired';
  constructor(jobId: number) {
    super(`The warehouse no longer keeps the snapshot before the sync ${String(jobId)} (older than warehouse.snapshot_retention_days, or from before snapshots named their jobs); it cannot be restored`);
  }
}

export class RestoreInProgressError extends ConflictError {
  override readonly code = 'restore_in_progress';
  constructor(name: string) {
    super(`A restore of "${name}" is already queued or running`);
  }
}

export class MaintenanceInProgressError extends ConflictError {
  override readonly code = 'maintenance_in_progress';
  constructor() {
    super('A warehouse maintenance is already queued or running');
  }
}
