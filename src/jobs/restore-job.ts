import { firstLineOf } from '../errors.ts';
import type { EventBus } from '../events/index.ts';
import { rawSchemaOf, rawTablesOf } from '../sources/index.ts';
import type { JobRecord, Store } from '../store/index.ts';
import { restoreSchemaAt, snapshotExists, snapshotsOfJob, type DuckDBConnection } from '../warehouse/index.ts';
import { RestoreInProgressError, SnapshotExpiredError, SyncCommittedNothingError } from './errors.ts';
import type { JobKind, JobSuccess, JobTools } from './job-lifecycle.ts';

interface RestoreOutcome {
  readonly snapshot: number;
  readonly tables: readonly { schema: string; name: string; rowCount: number }[];
}

export interface RestoreJobOptions {
  readonly source: string;
  /** The sync whose changes, and every later change of the source's raw tables, are undone. */
  readonly beforeSync: number;
  readonly requestedBy: string | null;
  readonly store: Store;
  readonly events: EventBus;
}

/**
 * The restore job kind: puts a source's raw tables back as they were just before one of its syncs
 * committed, as a new snapshot (the history stays). The file ledger and cursors described the tables as
 * they were; they are cleared and the source marked, so its next sync is a full refresh. Keeping a ledger
 * per sync to put back instead would miss what happened to the files since; a rebuild reads them as they are.
 */
export class RestoreJob implements JobKind<RestoreOutcome> {
  readonly kind = 'restore';
  readonly target: string;
  readonly fullRefresh = false;
  readonly requestedBy: string | null;
  readonly logSource: string;
  readonly lockScope = 'job';
  readonly serviceLog: JobKind<RestoreOutcome>['serviceLog'];
  readonly parameters: { readonly beforeSync: number };
  readonly #options: RestoreJobOptions;

  constructor(options: RestoreJobOptions) {
    this.#options = options;
    this.target = options.source;
    this.requestedBy = options.requestedBy;
    this.logSource = options.source;
    this.parameters = { beforeSync: options.beforeSync };
    this.serviceLog = { noun: 'restore', finished: 'restore finished', fields: { source: options.source, beforeSync: options.beforeSync } };
  }

  busy(): Error {
    return new RestoreInProgressError(this.target);
  }

  started(): string {
    return `Restore started: the raw tables go back to before the sync ${String(this.#options.beforeSync)}`;
  }

  work(tools: JobTools): Promise<RestoreOutcome> {
    const { source, beforeSync } = this.#options;
    return tools.write(async ({ connection, transaction, metadata }) => {
      // Checked again in the writer's turn: a maintenance job may have expired the snapshot since the request.
      const snapshot = await snapshotBeforeSync(connection, beforeSync);
      return transaction(async () => {
        await restoreSchemaAt({ connection, metadata }, rawSchemaOf(source), snapshot);
        return { snapshot, tables: await rawTablesOf(connection, source) };
      });
    });
  }

  async finished(job: JobRecord, outcome: RestoreOutcome, finishedAt: string): Promise<JobSuccess> {
    const { store, beforeSync } = this.#options;
    const source = this.target;
    await store.warehouseTables.replaceForSource(source, outcome.tables, finishedAt);
    await store.fileLedger.replace(source, []);
    await store.sourceState.clear(source);
    await store.refreshMarks.mark(source, `restored before the sync ${String(beforeSync)} by job ${String(job.id)}`, finishedAt);
    const rows = outcome.tables.reduce((sum, table) => sum + table.rowCount, 0);
    return {
      status: 'success', rows, error: null,
      logFields: { rows, snapshot: outcome.snapshot },
      lines: [{
        level: 'SUCCESS',
        message: `Restored ${String(outcome.tables.length)} raw table(s) to snapshot ${String(outcome.snapshot)} (before the sync ${String(beforeSync)}): ${String(rows)} rows; the next sync is a full refresh`,
      }],
      events: [{ type: 'warehouse_restored', source, before_sync: beforeSync, snapshot: outcome.snapshot }],
    };
  }

  failureMessage(error: unknown, interrupted: boolean): string {
    if (interrupted) return 'The restore was interrupted because the service is stopping; the data is as before it';
    if (error instanceof SnapshotExpiredError) return error.message;
    return `The restore failed: ${firstLineOf(error)}`;
  }

  failureLogLevel(error: unknown): 'error' | undefined {
    return error instanceof SnapshotExpiredError ? undefined : 'error';
  }

  failedEvents(): JobSuccess['events'] {
    return [];
  }
}

/**
 * The snapshot just before a sync's first: what the lake held before it committed. Throws when the sync
 * committed nothing (`succeeded` false: it failed or was interrupted) or the lake no longer keeps that snapshot.
 */
export async function snapshotBeforeSync(connection: DuckDBConnection, jobId: number, succeeded = true): Promise<number> {
  const [first] = await snapshotsOfJob(connection, jobId);
  if (first === undefined) throw succeeded ? new SnapshotExpiredError(jobId) : new SyncCommittedNothingError(jobId);
  if (!(await snapshotExists(connection, first - 1))) throw new SnapshotExpiredError(jobId);
  return first - 1;
}
