import type { PlatformDatabase } from './platform-database.ts';

/** `pending` until sent, or given up on (`failed`). */
export type OutboxStatus = 'pending' | 'sent' | 'failed';

export interface OutboxEntry {
  readonly id: number;
  readonly alert: string;
  readonly event: string;
  /** JSON, as the caller wrote it. */
  readonly message: string;
  readonly status: OutboxStatus;
  readonly createdAt: string;
  readonly attempts: number;
  readonly nextAttemptAt: string;
  readonly lastError: string | null;
}

const OUTBOX_COLUMNS = `id, alert, event, message, status, created_at AS "createdAt", attempts, next_attempt_at AS "nextAttemptAt",
  last_error AS "lastError"`;

/** Open incidents and the outbox of alert messages; the two change together in one transaction. */
export class AlertsRepository {
  readonly #database: PlatformDatabase;
  constructor(database: PlatformDatabase) {
    this.#database = database;
  }

  /** Records the incident unless one of that kind and subject is open; true when this opened it. */
  async openIncident(incident: { kind: string; subject: string; error: string; openedAt: string }): Promise<boolean> {
    const changes = await this.#database.run(
      'INSERT INTO alert_incidents (kind, subject, error, opened_at) VALUES (?, ?, ?, ?) ON CONFLICT (kind, subject) DO NOTHING',
      incident.kind, incident.subject, incident.error, incident.openedAt,
    );
    return changes === 1;
  }

  /** Ends the open incident of that kind and subject; true when there was one. */
  async closeIncident(kind: string, subject: string): Promise<boolean> {
    return await this.#database.run('DELETE FROM alert_incidents WHERE kind = ? AND subject = ?', kind, subject) === 1;
  }

  async enqueue(entry: { alert: string; event: string; message: string; createdAt: string }): Promise<number> {
    const row = await this.#database.get<{ id: number }>(`INSERT INTO alert_outbox (alert, event, message, status, created_at, next_attempt_at)
      VALUES (?, ?, ?, 'pending', ?, ?) RETURNING id`, entry.alert, entry.event, entry.message, entry.createdAt, entry.createdAt) as { id: number };
    return row.id;
  }

  /** Pending messages, oldest first: those due by `dueBy`, or every one. */
  async pending(dueBy?: string): Promise<OutboxEntry[]> {
    return dueBy === undefined
      ? await this.#database.all<OutboxEntry>(`SELECT ${OUTBOX_COLUMNS} FROM alert_outbox WHERE status = 'pending' ORDER BY id`)
      : await this.#database.all<OutboxEntry>(`SELECT ${OUTBOX_COLUMNS} FROM alert_outbox WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY id`, dueBy);
  }

  /** When the next pending message is due, or undefined when none is pending. */
  async nextAttemptAt(): Promise<string | undefined> {
    const row = await this.#database.get<{ next: string | null }>(`SELECT MIN(next_attempt_at) AS next FROM alert_outbox WHERE status = 'pending'`);
    return row?.next ?? undefined;
  }

  async markSent(id: number, at: string): Promise<void> {
    await this.#database.run(`UPDATE alert_outbox SET status = 'sent', attempts = attempts + 1, last_error = NULL, finished_at = ? WHERE id = ?`, at, id);
  }

  /** A failed attempt: tried again at `nextAttemptAt`, or given up on (`failed`) when that is undefined. */
  async markAttemptFailed(id: number, error: string, at: string, nextAttemptAt: string | undefined): Promise<void> {
    if (nextAttemptAt === undefined) {
      await this.#database.run(`UPDATE alert_outbox SET status = 'failed', attempts = attempts + 1, last_error = ?, finished_at = ? WHERE id = ?`,
        error, at, id);
      return;
    }
    await this.#database.run('UPDATE alert_outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = ? WHERE id = ?', error, nextAttemptAt, id);
  }

  /** Every message, newest first (the CLI and tests read the outbox's history here). */
  async latest(limit: number): Promise<OutboxEntry[]> {
    return await this.#database.all<OutboxEntry>(`SELECT ${OUTBOX_COLUMNS} FROM alert_outbox ORDER BY id DESC LIMIT ?`, limit);
  }
}
