import type { DatabaseSync } from 'node:sqlite';

export const ROLES = ['admin', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export interface UserRecord {
  readonly id: number;
  readonly email: string;
  readonly name: string;
  readonly role: Role;
  readonly active: boolean;
  readonly passwordHash: string | null;
  readonly passwordChangedAt: string | null;
  readonly mustChangePassword: boolean;
  readonly totpSecretEncrypted: string | null;
  readonly totpEnabled: boolean;
  readonly totpLastCounter: number;
  readonly oauthProvider: string | null;
  readonly createdAt: string;
}

interface UserRow {
  id: number;
  email: string;
  name: string;
  role: Role;
  active: number;
  password_hash: string | null;
  password_changed_at: string | null;
  must_change_password: number;
  totp_secret_encrypted: string | null;
  totp_enabled: number;
  totp_last_counter: number;
  oauth_provider: string | null;
  created_at: string;
}

export interface NewUser {
  email: string;
  name: string;
  role: Role;
  passwordHash: string | null;
  mustChangePassword?: boolean;
}

export class UsersRepository {
  readonly #database: DatabaseSync;
  constructor(database: DatabaseSync) {
    this.#database = database;
  }

  insert(user: NewUser, now: string): UserRecord {
    const row = this.#database.prepare(`
      INSERT INTO users (email, name, role, password_hash, password_changed_at, must_change_password, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`).get(
      user.email, user.name, user.role, user.passwordHash, user.passwordHash ? now : null,
      user.mustChangePassword === true ? 1 : 0, now, now,
    ) as unknown as UserRow;
    return toRecord(row);
  }

  findByEmail(email: string): UserRecord | undefined {
    const row = this.#database.prepare('SELECT * FROM users WHERE email = ?').get(email) as UserRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  findById(id: number): UserRecord | undefined {
    const row = this.#database.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  list(): UserRecord[] {
    return (this.#database.prepare('SELECT * FROM users ORDER BY email').all() as unknown as UserRow[]).map(toRecord);
  }

  count(): number {
    return (this.#database.prepare('SELECT count(*) AS n FROM users').get() as { n: number }).n;
  }

  setPassword(id: number, passwordHash: string, mustChangePassword: boolean, now: string): void {
    this.#database.prepare(`
      UPDATE users SET password_hash = ?, password_changed_at = ?, must_change_password = ?, updated_at = ? WHERE id = ?`)
      .run(passwordHash, now, mustChangePassword ? 1 : 0, now, id);
  }

  delete(id: number): void {
    this.#database.prepare('DELETE FROM users WHERE id = ?').run(id);
  }

  /** A pending secret (enabled false) during enrollment, the confirmed one after, or null when turned off. */
  setTotp(id: number, secretEncrypted: string | null, enabled: boolean, lastCounter: number, now: string): void {
    this.#database.prepare(`
      UPDATE users SET totp_secret_encrypted = ?, totp_enabled = ?, totp_last_counter = ?, updated_at = ? WHERE id = ?`)
      .run(secretEncrypted, enabled ? 1 : 0, lastCounter, now, id);
  }

  /** Records the time step of an accepted code, only if it is newer than the last one; false means a replay. */
  advanceTotpCounter(id: number, counter: number): boolean {
    const result = this.#database.prepare('UPDATE users SET totp_last_counter = ? WHERE id = ? AND totp_last_counter < ?')
      .run(counter, id, counter);
    return Number(result.changes) > 0;
  }

  linkOAuth(id: number, provider: string, subject: string, now: string): void {
    this.#database.prepare('UPDATE users SET oauth_provider = ?, oauth_subject = ?, updated_at = ? WHERE id = ?').run(provider, subject, now, id);
  }

  update(id: number, changes: { role?: Role; active?: boolean; name?: string }, now: string): void {
    const current = this.findById(id);
    if (!current) return;
    this.#database.prepare('UPDATE users SET role = ?, active = ?, name = ?, updated_at = ? WHERE id = ?').run(
      changes.role ?? current.role, (changes.active ?? current.active) ? 1 : 0, changes.name ?? current.name, now, id,
    );
  }
}

function toRecord(row: UserRow): UserRecord {
  return Object.freeze({
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    active: row.active === 1,
    passwordHash: row.password_hash,
    passwordChangedAt: row.password_changed_at,
    mustChangePassword: row.must_change_password === 1,
    totpSecretEncrypted: row.totp_secret_encrypted,
    totpEnabled: row.totp_enabled === 1,
    totpLastCounter: row.totp_last_counter,
    oauthProvider: row.oauth_provider,
    createdAt: row.created_at,
  });
}
