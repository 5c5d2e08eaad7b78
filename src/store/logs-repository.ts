import type { DatabaseSync } from 'node:sqlite';

export const LOG_LEVELS = ['INFO', 'WARNING', 'ERROR', 'SUCCESS'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LogEntry {
  readonly timestamp: string;
  readonly level: LogLevel;
  readonly source: string | null;
  readonly message: string;
}

/** The activity log users read (per source and platform-wide): short messages, never secrets. */
export class LogsRepository {
  readonly #database: DatabaseSync;
  readonly #redact: (text: string) => string;
  constructor(database: DatabaseSync, redact: (text: string) => string) {
    this.#database = database;
    this.#redact = redact;
  }

  append(entry: LogEntry & { jobId?: number | null }): void {
    this.#database.prepare('INSERT INTO logs (timestamp, level, source, job_id, message) VALUES (?, ?, ?, ?, ?)')
      .run(entry.timestamp, entry.level, entry.source, entry.jobId ?? null, this.#redact(entry.message));
  }

  /** Newest first. */
  latest(limit: number, source?: string): LogEntry[] {
    const rows = source === undefined
      ? this.#database.prepare('SELECT timestamp, level, source, message FROM logs ORDER BY id DESC LIMIT ?').all(limit)
      : this.#database.prepare('SELECT timestamp, level, source, message FROM logs WHERE source = ? ORDER BY id DESC LIMIT ?').all(source, limit);
    return rows as unknown as LogEntry[];
  }
}
