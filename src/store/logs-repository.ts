import type { PlatformDatabase } from './platform-database.ts';

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
  readonly #database: PlatformDatabase;
  readonly #redact: (text: string) => string;
  constructor(database: PlatformDatabase, redact: (text: string) => string) {
    this.#database = database;
    this.#redact = redact;
  }

  async append(entry: LogEntry & { jobId?: number | null }): Promise<void> {
    await this.#database.run('INSERT INTO logs (timestamp, level, source, job_id, message) VALUES (?, ?, ?, ?, ?)',
      entry.timestamp, entry.level, entry.source, entry.jobId ?? null, this.#redact(entry.message));
  }

  /** Newest first. */
  async latest(limit: number, source?: string): Promise<LogEntry[]> {
    return source === undefined
      ? await this.#database.all<LogEntry>('SELECT timestamp, level, source, message FROM logs ORDER BY id DESC LIMIT ?', limit)
      : await this.#database.all<LogEntry>('SELECT timestamp, level, source, message FROM logs WHERE source = ? ORDER BY id DESC LIMIT ?', source, limit);
  }
}
