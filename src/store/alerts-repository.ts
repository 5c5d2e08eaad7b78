import type { DatabaseSync } from 'node:sqlite';

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

const OUTBOX_COLUMNS = `id, alert, event, message, status, created_at AS createdAt, attempts, next_attempt_at AS nextAttemptAt,
  last_error AS lastError`;

/** Open incidents and the outbox of alert messages; the two change together in one transaction. */
export class AlertsRepository {
  readonly #database: DatabaseSync;
  constructor(database: DatabaseSync) {
    this.#database = database;
  }

  /** Records the incident unless one of that kind and subject is open; true when this opened it. */
  openIncident(incident: { kind: string; subject: string; error: string; openedAt: string }): boolean {
    const result = this.#database.prepare('INSERT OR IGNORE INTO alert_incidents (kind, subject, error, opened_at) VALUES (?, ?, ?, ?)')
      .run(incident.kind, incident.subject, incident.error, incident.openedAt);
    return result.changes === 1;
  }

  /** Ends the open incident of that kind and subject; true when there was one. */
  closeIncident(kind: string, subject: string): boolean {
    return this.#database.prepare('DELETE FROM alert_incidents WHERE kind = ? AND subject = ?').run(kind, subject).changes === 1;
  }

  enqueue(entry: { alert: string; event: string; message: string; createdAt: string }): number {
    const result = this.#database.prepare(`INSERT INTO alert_outbox (alert, event, message, status, created_at, next_attempt_at)
      VALUES (?, ?, ?, 'pending', ?, ?)`).run(entry.alert, entry.event, entry.message, entry.createdAt, entry.createdAt);
    return Number(result.lastInsertRowid);
  }

  /** Pending messages, oldest first: those due by `dueBy`, or every one. */
  pending(dueBy?: string): OutboxEntry[] {
    const rows = dueBy === undefined
      ? this.#database.prepare(`SELECT ${OUTBOX_COLUMNS} FROM alert_outbox WHERE status = 'pending' ORDER BY id`).all()
      : this.#database.prepare(`SELECT ${OUTBOX_COLUMNS} FROM alert_outbox WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY id`).all(dueBy);
    return rows as unknown as OutboxEntry[];
  }

  /** When the next pending message is due, or undefined when none is pending. */
  nextAttemptAt(): string | undefined {
    const row = this.#database.prepare(`SELECT MIN(next_attempt_at) AS next FROM alert_outbox WHERE status = 'pending'`).get() as
      { next: string | null } | undefined;
    return row?.next ?? undefined;
  }

  markSent(id: number, at: string): void {
    this.#database.prepare(`UPDATE alert_outbox SET status = 'sent', attempts = attempts + 1, last_error = NULL, finished_at = ? WHERE id = ?`)
      .run(at, id);
  }

  /** A failed attempt: tried again at `nextAttemptAt`, or given up on (`failed`) when that is undefined. */
  markAttemptFailed(id: number, error: string, at: string, nextAttemptAt: string | undefined): void {
    if (nextAttemptAt === undefined) {
      this.#database.prepare(`UPDATE alert_outbox SET status = 'failed', attempts = attempts + 1, last_error = ?, finished_at = ? WHERE id = ?`)
        .run(error, at, id);
      return;
    }
    this.#database.prepare('UPDATE alert_outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = ? WHERE id = ?')
      .run(error, nextAttemptAt, id);
  }

  /** Every message, newest first (the CLI and tests read the outbox's history here). */
  latest(limit: number): OutboxEntry[] {
    return this.#database.prepare(`SELECT ${OUTBOX_COLUMNS} FROM alert_outbox ORDER BY id DESC LIMIT ?`).all(limit) as unknown as OutboxEntry[];
  }
}
