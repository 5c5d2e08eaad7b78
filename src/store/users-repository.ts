import type { PlatformDatabase } from './platform-database.ts';

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
  readonly #database: PlatformDatabase;
  constructor(database: PlatformDatabase) {
    this.#database = database;
  }

  async insert(user: NewUser, now: string): Promise<UserRecord> {
    const row = await this.#database.get<UserRow>(`
      INSERT INTO users (email, name, role, password_hash, password_changed_at, must_change_password, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      user.email, user.name, user.role, user.passwordHash, user.passwordHash ? now : null,
      user.mustChangePassword === true ? 1 : 0, now, now,
    ) as UserRow;
    return toRecord(row);
  }

  async findByEmail(email: string): Promise<UserRecord | undefined> {
    const row = await this.#database.get<UserRow>('SELECT * FROM users WHERE email = ?', email);
    return row ? toRecord(row) : undefined;
  }

  async findById(id: number): Promise<UserRecord | undefined> {
    const row = await this.#database.get<UserRow>('SELECT * FROM users WHERE id = ?', id);
    return row ? toRecord(row) : undefined;
  }

  async list(): Promise<UserRecord[]> {
    return (await this.#database.all<UserRow>('SELECT * FROM users ORDER BY email')).map(toRecord);
  }

  async count(): Promise<number> {
    return (await this.#database.get<{ n: number }>('SELECT count(*) AS n FROM users') as { n: number }).n;
  }

  async setPassword(id: number, passwordHash: string, mustChangePassword: boolean, now: string): Promise<void> {
    await this.#database.run(`
      UPDATE users SET password_hash = ?, password_changed_at = ?, must_change_password = ?, updated_at = ? WHERE id = ?`,
      passwordHash, now, mustChangePassword ? 1 : 0, now, id);
  }

  async delete(id: number): Promise<void> {
    await this.#database.run('DELETE FROM users WHERE id = ?', id);
  }

  /** A pending secret (enabled false) during enrollment, the confirmed one after, or null when turned off. */
  async setTotp(id: number, secretEncrypted: string | null, enabled: boolean, lastCounter: number, now: string): Promise<void> {
    await this.#database.run(`
      UPDATE users SET totp_secret_encrypted = ?, totp_enabled = ?, totp_last_counter = ?, updated_at = ? WHERE id = ?`,
      secretEncrypted, enabled ? 1 : 0, lastCounter, now, id);
  }

  /** Records the time step of an accepted code, only if it is newer than the last one; false means a replay. */
  async advanceTotpCounter(id: number, counter: number): Promise<boolean> {
    const changes = await this.#database.run('UPDATE users SET totp_last_counter = ? WHERE id = ? AND totp_last_counter < ?', counter, id, counter);
    return changes > 0;
  }

  async linkOAuth(id: number, provider: string, subject: string, now: string): Promise<void> {
    await this.#database.run('UPDATE users SET oauth_provider = ?, oauth_subject = ?, updated_at = ? WHERE id = ?', provider, subject, now, id);
  }

  async update(id: number, changes: { role?: Role; active?: boolean; name?: string }, now: string): Promise<void> {
    await this.#database.transaction(async () => {
      const current = await this.findById(id);
      if (!current) return;
      await this.#database.run('UPDATE users SET role = ?, active = ?, name = ?, updated_at = ? WHERE id = ?',
        changes.role ?? current.role, (changes.active ?? current.active) ? 1 : 0, changes.name ?? current.name, now, id);
    });
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
