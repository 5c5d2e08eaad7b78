import { firstLineOf } from '../errors.ts';
import type { JobRecord } from '../store/index.ts';
import { maintainLake, WarehouseBusyError, type MaintenanceOutcome } from '../warehouse/index.ts';
import { MaintenanceInProgressError } from './errors.ts';
import type { JobKind, JobSuccess, JobTools } from './job-lifecycle.ts';

/** The target of every maintenance job: the whole lake. */
export const MAINTENANCE_TARGET = 'warehouse';

/**
 * The maintenance job kind: compacts the lake and lets go of what `warehouse.snapshot_retention_days` no
 * longer keeps (see maintainLake). It holds the writer's turn for the whole job, so no other write runs meanwhile.
 */
export class MaintenanceJob implements JobKind<MaintenanceOutcome> {
  readonly kind = 'maintain';
  readonly target = MAINTENANCE_TARGET;
  readonly fullRefresh = false;
  readonly requestedBy: string | null;
  readonly logSource = null;
  readonly lockScope = 'job';
  readonly serviceLog = { noun: 'warehouse maintenance', finished: 'warehouse maintenance finished', fields: { target: MAINTENANCE_TARGET } };
  readonly parameters: { readonly retentionDays: number };
  readonly #retentionDays: number;

  constructor(options: { retentionDays: number; requestedBy: string | null }) {
    this.#retentionDays = options.retentionDays;
    this.requestedBy = options.requestedBy;
    this.parameters = { retentionDays: options.retentionDays };
  }

  busy(): Error {
    return new MaintenanceInProgressError();
  }

  started(): string {
    return `Warehouse maintenance started (snapshots kept ${String(this.#retentionDays)} day(s))`;
  }

  work(tools: JobTools): Promise<MaintenanceOutcome> {
    return tools.write((write) => maintainLake(write, this.#retentionDays));
  }

  finished(_job: JobRecord, outcome: MaintenanceOutcome): Promise<JobSuccess> {
    const message = `Warehouse maintenance finished: ${String(outcome.filesMerged)} file(s) merged into ${String(outcome.filesCreated)}, `
      + `${String(outcome.snapshotsExpired)} snapshot(s) expired, ${String(outcome.filesDeleted)} old and ${String(outcome.orphansDeleted)} orphaned file(s) deleted`;
    return Promise.resolve({ status: 'success', rows: null, error: null, logFields: { ...outcome }, lines: [{ level: 'SUCCESS', message }], events: [] });
  }

  failureMessage(error: unknown, interrupted: boolean): string {
    if (interrupted) return 'The warehouse maintenance was interrupted because the service is stopping; the lake is as before it';
    if (error instanceof WarehouseBusyError) return error.message;
    return `The warehouse maintenance failed: ${firstLineOf(error)}`;
  }

  failureLogLevel(error: unknown): 'error' | undefined {
    return error instanceof WarehouseBusyError ? undefined : 'error';
  }

  failedEvents(): JobSuccess['events'] {
    return [];
  }
}
