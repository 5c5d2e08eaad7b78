import type { PlatformDatabase } from './platform-database.ts';

export const MODEL_RUN_STATUSES = ['running', 'success', 'error', 'skipped'] as const;
export type ModelRunStatus = (typeof MODEL_RUN_STATUSES)[number];

export interface ModelRunRecord {
  readonly jobId: number;
  readonly model: string;
  readonly status: ModelRunStatus;
  readonly startedAt: string;
  readonly finishedAt: string | null;
  readonly durationSeconds: number | null;
  readonly error: string | null;
}

interface ModelRunRow {
  job_id: number; model: string; status: ModelRunStatus; started_at: string; finished_at: string | null;
  duration_seconds: number | null; error: string | null;
}

function toRecord(row: ModelRunRow): ModelRunRecord {
  return Object.freeze({
    jobId: row.job_id, model: row.model, status: row.status, startedAt: row.started_at, finishedAt: row.finished_at,
    durationSeconds: row.duration_seconds, error: row.error,
  });
}

/** One row per model per run job: its status, timing and error, written as dbt reports them. */
export class ModelRunsRepository {
  readonly #database: PlatformDatabase;
  constructor(database: PlatformDatabase) {
    this.#database = database;
  }

  async markRunning(jobId: number, model: string, now: string): Promise<void> {
    await this.#database.run("INSERT INTO model_runs (job_id, model, status, started_at) VALUES (?, ?, 'running', ?)", jobId, model, now);
  }

  /**
   * Records a model's outcome in a job, whether or not it was marked running first; `startedAt` and
   * `finishedAt`, when the engine reported them, replace the times seen from outside.
   */
  async finish(jobId: number, model: string, outcome: {
    status: Exclude<ModelRunStatus, 'running'>; durationSeconds: number | null; error: string | null; startedAt?: string | null; finishedAt?: string | null;
  }, now: string): Promise<void> {
    const finishedAt = outcome.finishedAt ?? now;
    const startedAt = outcome.startedAt ?? null;
    await this.#database.transaction(async () => {
      const updated = await this.#database.run(`
        UPDATE model_runs SET status = ?, started_at = coalesce(?, started_at), finished_at = ?, duration_seconds = ?, error = ?
        WHERE job_id = ? AND model = ? AND status = 'running'`,
        outcome.status, startedAt, finishedAt, outcome.durationSeconds, outcome.error, jobId, model);
      if (updated > 0) return;
      await this.#database.run(`
        INSERT INTO model_runs (job_id, model, status, started_at, finished_at, duration_seconds, error) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        jobId, model, outcome.status, startedAt ?? now, finishedAt, outcome.durationSeconds, outcome.error);
    });
  }

  /**
   * Models a job left running (dbt stopped) become errors with `message`; with no job, those of every job that is no
   * longer queued or running (a stopped service's), never those of a run another process is doing now.
   */
  async failRunning(jobId: number | null, message: string, now: string): Promise<void> {
    await this.#database.run(`
      UPDATE model_runs SET status = 'error', finished_at = ?, error = ? WHERE status = 'running' AND (CAST(? AS BIGINT) IS NULL
        AND (job_id IS NULL OR job_id NOT IN (SELECT id FROM jobs WHERE status IN ('queued', 'running'))) OR job_id = ?)`,
      now, message, jobId, jobId);
  }

  /** The latest record of every model that ever ran. */
  async latestByModel(): Promise<Map<string, ModelRunRecord>> {
    const rows = await this.#database.all<ModelRunRow>('SELECT * FROM model_runs WHERE id IN (SELECT max(id) FROM model_runs GROUP BY model)');
    return new Map(rows.map((row) => [row.model, toRecord(row)]));
  }

  async forJob(jobId: number): Promise<ModelRunRecord[]> {
    return (await this.#database.all<ModelRunRow>('SELECT * FROM model_runs WHERE job_id = ? ORDER BY id', jobId)).map(toRecord);
  }

  async recentFailures(sinceIso: string): Promise<ModelRunRecord[]> {
    return (await this.#database.all<ModelRunRow>("SELECT * FROM model_runs WHERE status = 'error' AND finished_at >= ? ORDER BY id DESC LIMIT 50",
      sinceIso)).map(toRecord);
  }
}
