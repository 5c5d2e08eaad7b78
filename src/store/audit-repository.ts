import type { DatabaseSync } from 'node:sqlite';

export interface AuditEvent {
  readonly id: number;
  readonly at: string;
  readonly event: string;
  readonly actorEmail: string | null;
  readonly subject: string | null;
  readonly ip: string | null;
  readonly detail: string | null;
}

export type NewAuditEvent = Omit<AuditEvent, 'id'>;

/** Security events, newest last; callers never put a secret in any field. */
export class AuditRepository {
  readonly #database: DatabaseSync;
  constructor(database: DatabaseSync) {
    this.#database = database;
  }

  append(event: NewAuditEvent): void {
    this.#database.prepare('INSERT INTO audit_events (at, event, actor_email, subject, ip, detail) VALUES (?, ?, ?, ?, ?, ?)')
      .run(event.at, event.event, event.actorEmail, event.subject, event.ip, event.detail);
  }

  latest(limit: number): AuditEvent[] {
    const rows = this.#database.prepare('SELECT * FROM audit_events ORDER BY id DESC LIMIT ?').all(limit) as unknown as {
      id: number; at: string; event: string; actor_email: string | null; subject: string | null; ip: string | null; detail: string | null;
    }[];
    return rows.map((row) => ({
      id: row.id, at: row.at, event: row.event, actorEmail: row.actor_email, subject: row.subject, ip: row.ip, detail: row.detail,
    }));
  }
}
