import type { PlatformDatabase } from './platform-database.ts';

/** Ids bound in one statement: well under SQLite's and PostgreSQL's limits on parameters. */
const IDS_PER_QUERY = 500;

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
  readonly owner: JobOwner | null;
  /** The name of the process that ran it (a worker's --name, or host:pid); null before it ran. */
  readonly worker: string | null;
  /** What it was asked to do, as its kind reads it back to run it in any process; null for a job of before. */
  readonly parameters: Readonly<Record<string, unknown>> | null;
}

/** A process that owns a job: its id and start time on its host (see ProcessIdentity), and its name. */
export interface JobOwner {
  readonly pid: number;
  readonly started: string;
  /** null for a job recorded before hosts were. */
  readonly host: string | null;
  readonly worker: string;
}

interface JobRow {
  id: number; kind: JobKind; target: string; status: JobStatus; full_refresh: number; requested_by: string | null;
  created_at: string; started_at: string | null; finished_at: string | null; rows: number | null; error: string | null; files_failed: number;
  transient: number; snapshot_before: number | null; snapshot_after: number | null; owner_pid: number | null; owner_started: string | null;
  owner_host: string | null; worker: string | null; parameters: string | null;
}

function toRecord(row: JobRow): JobRecord {
  return Object.freeze({
    id: row.id, kind: row.kind, target: row.target, status: row.status, fullRefresh: row.full_refresh === 1,
    requestedBy: row.requested_by, createdAt: row.created_at, startedAt: row.started_at, finishedAt: row.finished_at,
    rows: row.rows, error: row.error, filesFailed: row.files_failed, transient: row.transient === 1,
    snapshotBefore: row.snapshot_before, snapshotAfter: row.snapshot_after,
    owner: row.owner_pid === null ? null : { pid: row.owner_pid, started: row.owner_started ?? '', host: row.owner_host, worker: row.worker ?? '' },
    worker: row.status === 'queued' ? null : row.worker,
    parameters: row.parameters === null ? null : JSON.parse(row.parameters) as Record<string, unknown>,
  });
}

/** Sync and model-run jobs, each transition written as it happens. */
export class JobsRepository {
  readonly #database: PlatformDatabase;
  readonly #redact: (text: string) => string;
  constructor(database: PlatformDatabase, redact: (text: string) => string) {
    this.#database = database;
    this.#redact = redact;
  }

  /**
   * Queues a job run by `owner` unless one for the same target is queued or running, in any process of the
   * deployment; returns undefined then. The database's unique index on active jobs decides, so two processes
   * asking at once cannot both queue one.
   */
  async enqueueUnlessActive(
    job: { kind: JobKind; target: string; fullRefresh: boolean; requestedBy: string | null; parameters?: Readonly<Record<string, unknown>> },
    now: string, owner: JobOwner,
  ): Promise<JobRecord | undefined> {
    const row = await this.#database.get<JobRow>(`
      INSERT INTO jobs (kind, target, status, full_refresh, requested_by, created_at, owner_pid, owner_started, owner_host, worker, parameters)
      VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (kind, target) WHERE status IN ('queued', 'running') DO NOTHING RETURNING *`,
      job.kind, job.target, job.fullRefresh ? 1 : 0, job.requestedBy, now, owner.pid, owner.started, owner.host, owner.worker,
      job.parameters === undefined ? null : JSON.stringify(job.parameters));
    return row === undefined ? undefined : toRecord(row);
  }

  /** Queued and running jobs, of every process. */
  async active(): Promise<JobRecord[]> {
    return (await this.#database.all<JobRow>("SELECT * FROM jobs WHERE status IN ('queued', 'running') ORDER BY id")).map(toRecord);
  }

  /**
   * Marks the job running in `owner`, which takes it over from the process that queued it (or from a worker whose
   * lease on it lapsed); answers false when it has ended meanwhile.
   */
  async markRunning(id: number, now: string, owner: JobOwner): Promise<boolean> {
    return await this.#database.run(`
      UPDATE jobs SET status = 'running', started_at = ?, owner_pid = ?, owner_started = ?, owner_host = ?, worker = ?
      WHERE id = ? AND status IN ('queued', 'running')`,
    now, owner.pid, owner.started, owner.host, owner.worker, id) === 1;
  }

  async finish(
    id: number,
    outcome: { status: 'success' | 'failed' | 'interrupted'; rows: number | null; error: string | null; filesFailed?: number; transient?: boolean },
    now: string,
  ): Promise<void> {
    await this.#database.run('UPDATE jobs SET status = ?, finished_at = ?, rows = ?, error = ?, files_failed = ?, transient = ? WHERE id = ?',
      outcome.status, now, outcome.rows, outcome.error === null ? null : this.#redact(outcome.error), outcome.filesFailed ?? 0, outcome.transient === true ? 1 : 0, id);
  }

  /** Records the lake snapshots a job spans (a model run, whose snapshots dbt commits). */
  async recordSnapshotRange(id: number, before: number | null, after: number | null): Promise<void> {
    await this.#database.run('UPDATE jobs SET snapshot_before = ?, snapshot_after = ? WHERE id = ?', before, after, id);
  }

  /** Jobs whose recorded snapshot span ends at or after `snapshot` (model runs, whose snapshots dbt commits). */
  async spanningFrom(snapshot: number): Promise<JobRecord[]> {
    return (await this.#database.all<JobRow>('SELECT * FROM jobs WHERE snapshot_after >= ? ORDER BY id', snapshot)).map(toRecord);
  }

  /** The jobs among `ids` that have ended (neither queued nor running any more). */
  async endedAmong(ids: readonly number[]): Promise<JobRecord[]> {
    const ended: JobRecord[] = [];
    for (let from = 0; from < ids.length; from += IDS_PER_QUERY) {
      const some = ids.slice(from, from + IDS_PER_QUERY);
      const rows = await this.#database.all<JobRow>(
        `SELECT * FROM jobs WHERE id IN (${some.map(() => '?').join(', ')}) AND status NOT IN ('queued', 'running') ORDER BY id`, ...some,
      );
      ended.push(...rows.map(toRecord));
    }
    return ended;
  }

  async get(id: number): Promise<JobRecord | undefined> {
    const row = await this.#database.get<JobRow>('SELECT * FROM jobs WHERE id = ?', id);
    return row ? toRecord(row) : undefined;
  }

  /** Marks the job interrupted with `error` if it is still queued or running; returns it then. */
  async interrupt(id: number, error: string, now: string): Promise<JobRecord | undefined> {
    const row = await this.#database.get<JobRow>(`
      UPDATE jobs SET status = 'interrupted', finished_at = ?, error = ? WHERE id = ? AND status IN ('queued', 'running') RETURNING *`,
      now, error, id);
    return row === undefined ? undefined : toRecord(row);
  }

  async latest(kind: JobKind, target: string): Promise<JobRecord | undefined> {
    const row = await this.#database.get<JobRow>('SELECT * FROM jobs WHERE kind = ? AND target = ? ORDER BY id DESC LIMIT 1', kind, target);
    return row ? toRecord(row) : undefined;
  }

  async latestWithStatus(kind: JobKind, target: string, status: JobStatus): Promise<JobRecord | undefined> {
    const row = await this.#database.get<JobRow>('SELECT * FROM jobs WHERE kind = ? AND target = ? AND status = ? ORDER BY id DESC LIMIT 1',
      kind, target, status);
    return row ? toRecord(row) : undefined;
  }

  async history(kind: JobKind, target: string, limit: number): Promise<JobRecord[]> {
    return (await this.#database.all<JobRow>('SELECT * FROM jobs WHERE kind = ? AND target = ? ORDER BY id DESC LIMIT ?', kind, target, limit))
      .map(toRecord);
  }

  /**
   * Each target's latest failure since `sinceIso`, unless a later job of it succeeded: what still needs attention.
   * An interrupted job says nothing of whether the failure's cause is gone, so it leaves the failure standing.
   */
  async unresolvedFailures(kind: JobKind, sinceIso: string): Promise<JobRecord[]> {
    return (await this.#database.all<JobRow>(`
      SELECT * FROM jobs AS failed WHERE kind = ? AND status = 'failed' AND finished_at >= ?
        AND NOT EXISTS (SELECT 1 FROM jobs AS later WHERE later.kind = failed.kind AND later.target = failed.target AND later.id > failed.id AND later.status IN ('success', 'failed'))
      ORDER BY id DESC LIMIT 50`, kind, sinceIso)).map(toRecord);
  }
}
