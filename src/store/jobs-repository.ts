import type { DatabaseSync } from 'node:sqlite';

export const JOB_STATUSES = ['queued', 'running', 'success', 'failed', 'interrupted'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export type JobKind = 'sync' | 'run' | 'restore' | 'maintain';

export interface JobRecord {
  readonly id: number;
  readonly kind: JobKind;
  readonly target: string;
  readonly status: JobStatus;
  readonly fullRefresh: boolean;
  readonly requestedBy: string | null;
  readonly createdAt: string;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly rows: number | null;
  readonly error: string | null;
  /** Files a successful sync skipped because DuckDB could not read them. */
  readonly filesFailed: number;
  /** A failure that may pass if tried again (network, 5xx, 429 after the connector's own retries). */
  readonly transient: boolean;
  /** A model run's span of lake snapshots: the latest before it started and after it ended (null for other kinds). */
  readonly snapshotBefore: number | null;
  readonly snapshotAfter: number | null;
  /** The process that runs it; null for a job recorded before processes were. */
  readonly owner: { readonly pid: number; readonly started: string } | null;
}

interface JobRow {
  id: number; kind: JobKind; target: string; status: JobStatus; full_refresh: number; requested_by: string | null;
  created_at: string; started_at: string | null; finished_at: string | null; rows: number | null; error: string | null; files_failed: number;
  transient: number; snapshot_before: number | null; snapshot_after: number | null; owner_pid: number | null; owner_started: string | null;
}

function toRecord(row: JobRow): JobRecord {
  return Object.freeze({
    id: row.id, kind: row.kind, target: row.target, status: row.status, fullRefresh: row.full_refresh === 1,
    requestedBy: row.requested_by, createdAt: row.created_at, startedAt: row.started_at, finishedAt: row.finished_at,
    rows: row.rows, error: row.error, filesFailed: row.files_failed, transient: row.transient === 1,
    snapshotBefore: row.snapshot_before, snapshotAfter: row.snapshot_after,
    owner: row.owner_pid === null ? null : { pid: row.owner_pid, started: row.owner_started ?? '' },
  });
}

/** Sync and model-run jobs, each transition written as it happens. */
export class JobsRepository {
  readonly #database: DatabaseSync;
  readonly #redact: (text: string) => string;
  constructor(database: DatabaseSync, redact: (text: string) => string) {
    this.#database = database;
    this.#redact = redact;
  }

  /**
   * Queues a job run by `owner` unless one for the same target is queued or running; returns undefined then. Call
   * inside a transaction.
   */
  enqueueUnlessActive(
    job: { kind: JobKind; target: string; fullRefresh: boolean; requestedBy: string | null }, now: string, owner: { pid: number; started: string },
  ): JobRecord | undefined {
    const active = this.#database.prepare("SELECT 1 FROM jobs WHERE kind = ? AND target = ? AND status IN ('queued', 'running')")
      .get(job.kind, job.target);
    if (active !== undefined) return undefined;
    const row = this.#database.prepare(`
      INSERT INTO jobs (kind, target, status, full_refresh, requested_by, created_at, owner_pid, owner_started) VALUES (?, ?, 'queued', ?, ?, ?, ?, ?) RETURNING *`)
      .get(job.kind, job.target, job.fullRefresh ? 1 : 0, job.requestedBy, now, owner.pid, owner.started) as unknown as JobRow;
    return toRecord(row);
  }

  /** Queued and running jobs, of every process. */
  active(): JobRecord[] {
    return (this.#database.prepare("SELECT * FROM jobs WHERE status IN ('queued', 'running') ORDER BY id").all() as unknown as JobRow[]).map(toRecord);
  }

  markRunning(id: number, now: string): void {
    this.#database.prepare("UPDATE jobs SET status = 'running', started_at = ? WHERE id = ?").run(now, id);
  }

  finish(
    id: number,
    outcome: { status: 'success' | 'failed' | 'interrupted'; rows: number | null; error: string | null; filesFailed?: number; transient?: boolean },
    now: string,
  ): void {
    this.#database.prepare('UPDATE jobs SET status = ?, finished_at = ?, rows = ?, error = ?, files_failed = ?, transient = ? WHERE id = ?')
      .run(outcome.status, now, outcome.rows, outcome.error === null ? null : this.#redact(outcome.error), outcome.filesFailed ?? 0, outcome.transient === true ? 1 : 0, id);
  }

  /** Records the lake snapshots a job spans (a model run, whose snapshots dbt commits). */
  recordSnapshotRange(id: number, before: number | null, after: number | null): void {
    this.#database.prepare('UPDATE jobs SET snapshot_before = ?, snapshot_after = ? WHERE id = ?').run(before, after, id);
  }

  /** Jobs whose recorded snapshot span ends at or after `snapshot` (model runs, whose snapshots dbt commits). */
  spanningFrom(snapshot: number): JobRecord[] {
    return (this.#database.prepare('SELECT * FROM jobs WHERE snapshot_after >= ? ORDER BY id')
      .all(snapshot) as unknown as JobRow[]).map(toRecord);
  }

  get(id: number): JobRecord | undefined {
    const row = this.#database.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  /** Marks the job interrupted with `error` if it is still queued or running; returns it then. */
  interrupt(id: number, error: string, now: string): JobRecord | undefined {
    const row = this.#database.prepare(`
      UPDATE jobs SET status = 'interrupted', finished_at = ?, error = ? WHERE id = ? AND status IN ('queued', 'running') RETURNING *`)
      .get(now, error, id) as JobRow | undefined;
    return row === undefined ? undefined : toRecord(row);
  }

  latest(kind: JobKind, target: string): JobRecord | undefined {
    const row = this.#database.prepare('SELECT * FROM jobs WHERE kind = ? AND target = ? ORDER BY id DESC LIMIT 1').get(kind, target) as JobRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  latestWithStatus(kind: JobKind, target: string, status: JobStatus): JobRecord | undefined {
    const row = this.#database.prepare('SELECT * FROM jobs WHERE kind = ? AND target = ? AND status = ? ORDER BY id DESC LIMIT 1')
      .get(kind, target, status) as JobRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  history(kind: JobKind, target: string, limit: number): JobRecord[] {
    return (this.#database.prepare('SELECT * FROM jobs WHERE kind = ? AND target = ? ORDER BY id DESC LIMIT ?')
      .all(kind, target, limit) as unknown as JobRow[]).map(toRecord);
  }

  /**
   * Each target's latest failure since `sinceIso`, unless a later job of it succeeded: what still needs attention.
   * An interrupted job says nothing of whether the failure's cause is gone, so it leaves the failure standing.
   */
  unresolvedFailures(kind: JobKind, sinceIso: string): JobRecord[] {
    return (this.#database.prepare(`
      SELECT * FROM jobs AS failed WHERE kind = ? AND status = 'failed' AND finished_at >= ?
        AND NOT EXISTS (SELECT 1 FROM jobs AS later WHERE later.kind = failed.kind AND later.target = failed.target AND later.id > failed.id AND later.status IN ('success', 'failed'))
      ORDER BY id DESC LIMIT 50`)
      .all(kind, sinceIso) as unknown as JobRow[]).map(toRecord);
  }
}
