import type { PlatformDatabase } from './platform-database.ts';

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
  readonly #database: PlatformDatabase;
  constructor(database: PlatformDatabase) {
    this.#database = database;
  }

  async insert(session: NewSession, now: string): Promise<void> {
    await this.#database.run(`
      INSERT INTO sessions (id, token_hash, user_id, stage, created_at, last_seen_at, ip, user_agent)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      session.id, session.tokenHash, session.userId, session.stage, now, now, session.ip, session.userAgent,
    );
  }

  async findByTokenHash(tokenHash: string): Promise<SessionRecord | undefined> {
    const row = await this.#database.get<SessionRow>('SELECT * FROM sessions WHERE token_hash = ?', tokenHash);
    return row ? toRecord(row) : undefined;
  }

  async findById(id: string): Promise<SessionRecord | undefined> {
    const row = await this.#database.get<SessionRow>('SELECT * FROM sessions WHERE id = ?', id);
    return row ? toRecord(row) : undefined;
  }

  /** Counts one more wrong two-factor code on the session and returns the new count. */
  async countTotpFailure(id: string): Promise<number> {
    const row = await this.#database.get<{ totp_failures: number }>('UPDATE sessions SET totp_failures = totp_failures + 1 WHERE id = ? RETURNING totp_failures', id);
    return row?.totp_failures ?? 0;
  }

  async listForUser(userId: number): Promise<SessionRecord[]> {
    return (await this.#database.all<SessionRow>('SELECT * FROM sessions WHERE user_id = ? ORDER BY created_at DESC', userId)).map(toRecord);
  }

  async touch(id: string, now: string): Promise<void> {
    await this.#database.run('UPDATE sessions SET last_seen_at = ? WHERE id = ?', now, id);
  }

  async delete(id: string): Promise<boolean> {
    return await this.#database.run('DELETE FROM sessions WHERE id = ?', id) > 0;
  }

  async deleteForUser(userId: number, exceptId?: string): Promise<number> {
    return await this.#database.run('DELETE FROM sessions WHERE user_id = ? AND id IS DISTINCT FROM ?', userId, exceptId ?? null);
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
