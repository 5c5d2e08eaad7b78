import type { DatabaseSync } from 'node:sqlite';

export const SESSION_STAGES = ['full', 'partial', 'password_change'] as const;
export type SessionStage = (typeof SESSION_STAGES)[number];

export interface SessionRecord {
  readonly id: string;
  readonly userId: number;
  readonly stage: SessionStage;
  readonly createdAt: string;
  readonly lastSeenAt: string;
  readonly ip: string;
  readonly userAgent: string;
}

interface SessionRow {
  id: string;
  user_id: number;
  stage: SessionStage;
  created_at: string;
  last_seen_at: string;
  ip: string;
  user_agent: string;
}

export interface NewSession {
  id: string;
  tokenHash: string;
  userId: number;
  stage: SessionStage;
  ip: string;
  userAgent: string;
}

export class SessionsRepository {
  readonly #database: DatabaseSync;
  constructor(database: DatabaseSync) {
    this.#database = database;
  }

  insert(session: NewSession, now: string): void {
    this.#database.prepare(`
      INSERT INTO sessions (id, token_hash, user_id, stage, created_at, last_seen_at, ip, user_agent)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(
      session.id, session.tokenHash, session.userId, session.stage, now, now, session.ip, session.userAgent,
    );
  }

  findByTokenHash(tokenHash: string): SessionRecord | undefined {
    const row = this.#database.prepare('SELECT * FROM sessions WHERE token_hash = ?').get(tokenHash) as SessionRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  findById(id: string): SessionRecord | undefined {
    const row = this.#database.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as SessionRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  /** Counts one more wrong two-factor code on the session and returns the new count. */
  countTotpFailure(id: string): number {
    const row = this.#database.prepare('UPDATE sessions SET totp_failures = totp_failures + 1 WHERE id = ? RETURNING totp_failures')
      .get(id) as { totp_failures: number } | undefined;
    return row?.totp_failures ?? 0;
  }

  listForUser(userId: number): SessionRecord[] {
    return (this.#database.prepare('SELECT * FROM sessions WHERE user_id = ? ORDER BY created_at DESC')
      .all(userId) as unknown as SessionRow[]).map(toRecord);
  }

  touch(id: string, now: string): void {
    this.#database.prepare('UPDATE sessions SET last_seen_at = ? WHERE id = ?').run(now, id);
  }

  delete(id: string): boolean {
    return Number(this.#database.prepare('DELETE FROM sessions WHERE id = ?').run(id).changes) > 0;
  }

  deleteForUser(userId: number, exceptId?: string): number {
    const result = this.#database.prepare('DELETE FROM sessions WHERE user_id = ? AND id IS NOT ?').run(userId, exceptId ?? null);
    return Number(result.changes);
  }
}

function toRecord(row: SessionRow): SessionRecord {
  return Object.freeze({
    id: row.id,
    userId: row.user_id,
    stage: row.stage,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    ip: row.ip,
    userAgent: row.user_agent,
  });
}
