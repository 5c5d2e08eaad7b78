import type { PlatformDatabase } from './platform-database.ts';

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
  readonly #database: PlatformDatabase;
  constructor(database: PlatformDatabase) {
    this.#database = database;
  }

  async append(event: NewAuditEvent): Promise<void> {
    await this.#database.run('INSERT INTO audit_events (at, event, actor_email, subject, ip, detail) VALUES (?, ?, ?, ?, ?, ?)',
      event.at, event.event, event.actorEmail, event.subject, event.ip, event.detail);
  }

  async latest(limit: number): Promise<AuditEvent[]> {
    const rows = await this.#database.all<{
      id: number; at: string; event: string; actor_email: string | null; subject: string | null; ip: string | null; detail: string | null;
    }>('SELECT * FROM audit_events ORDER BY id DESC LIMIT ?', limit);
    return rows.map((row) => ({
      id: row.id, at: row.at, event: row.event, actorEmail: row.actor_email, subject: row.subject, ip: row.ip, detail: row.detail,
    }));
  }
}
