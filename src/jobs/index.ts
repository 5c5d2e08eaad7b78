export { JobRunner, type JobRunnerOptions, type BackfillRequest, type StartedJob } from './job-runner.ts';
// The routes and the CLI ask here; the answer belongs to each type's loader in sources/.
export { fileSourceLocation } from '../sources/index.ts';
export {
  SourceNotFoundError, SourceDisabledError, SyncInProgressError, SourceTypeNotSupportedError,
  SyncNotFoundError, SyncOfAnotherSourceError, SyncCommittedNothingError, SnapshotExpiredError, RestoreInProgressError, MaintenanceInProgressError,
} from './errors.ts';
export { SourceReports, summarizeSource, SOURCE_STATUSES, type SourceStatus, type SourceSummary, type SyncHistoryEntry } from './source-report.ts';
export { testConnection, type ConnectionTestOptions } from './test-connection.ts';
export { finishWithin } from './finish-within.ts';
export { JobLifecycle, type JobKind, type JobTools, type JobSuccess, type ActiveJob, type JobEnding, type JobLifecycleOptions } from './job-lifecycle.ts';
export { JobQueue, type QueuedJob, type JobQueueOptions } from './job-queue.ts';
export { startAllSyncs, type SyncAllEntry } from './sync-all.ts';
export { MaintenanceJob, MAINTENANCE_TARGET } from './maintenance-job.ts';
export { snapshotReport } from './snapshot-report.ts';
export { describeJob, interruptOrphanedJobs, orphanedJobs } from './orphaned-jobs.ts';
