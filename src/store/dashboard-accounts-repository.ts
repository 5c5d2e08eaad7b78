import type { DatabaseSync } from 'node:sqlite';
import type { Role } from './users-repository.ts';

/** A platform user's account in the dashboard tool; the password is sealed with the project's key and never shown. */
export interface DashboardAccount {
  readonly userId: number;
  readonly username: string;
  readonly supersetUserId: number;
  readonly passwordEncrypted: string;
  readonly active: boolean;
  /** The platform role its Superset roles were mapped from; null for accounts synced before roles were recorded. */
  readonly role: Role | null;
  readonly syncedAt: string;
}

interface AccountRow {
  user_id: number;
  username: string;
  superset_user_id: number;
  password_encrypted: string;
  active: number;
  role: Role | null;
  synced_at: string;
}

const toAccount = (row: AccountRow): DashboardAccount => ({
  userId: row.user_id,
  username: row.username,
  supersetUserId: row.superset_user_id,
  passwordEncrypted: row.password_encrypted,
  active: row.active === 1,
  role: row.role,
  syncedAt: row.synced_at,
});

export class DashboardAccountsRepository {
  readonly #database: DatabaseSync;

  constructor(database: DatabaseSync) {
    this.#database = database;
  }

  get(userId: number): DashboardAccount | undefined {
    const row = this.#database.prepare('SELECT * FROM dashboard_accounts WHERE user_id = ?').get(userId) as AccountRow | undefined;
    return row === undefined ? undefined : toAccount(row);
  }

  list(): DashboardAccount[] {
    return (this.#database.prepare('SELECT * FROM dashboard_accounts ORDER BY user_id').all() as unknown as AccountRow[]).map(toAccount);
  }

  /** Saves the account; a leftover row of a deleted user with the same username gives way. */
  save(account: DashboardAccount): void {
    this.#database.prepare('DELETE FROM dashboard_accounts WHERE username = ? AND user_id <> ?').run(account.username, account.userId);
    this.#database.prepare(`
      INSERT INTO dashboard_accounts (user_id, username, superset_user_id, password_encrypted, active, role, synced_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (user_id) DO UPDATE SET username = excluded.username, superset_user_id = excluded.superset_user_id,
        password_encrypted = excluded.password_encrypted, active = excluded.active, role = excluded.role, synced_at = excluded.synced_at
    `).run(account.userId, account.username, account.supersetUserId, account.passwordEncrypted, account.active ? 1 : 0, account.role, account.syncedAt);
  }

  delete(userId: number): void {
    this.#database.prepare('DELETE FROM dashboard_accounts WHERE user_id = ?').run(userId);
  }
}
