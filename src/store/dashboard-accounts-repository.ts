import type { PlatformDatabase } from './platform-database.ts';
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
  readonly #database: PlatformDatabase;

  constructor(database: PlatformDatabase) {
    this.#database = database;
  }

  async get(userId: number): Promise<DashboardAccount | undefined> {
    const row = await this.#database.get<AccountRow>('SELECT * FROM dashboard_accounts WHERE user_id = ?', userId);
    return row === undefined ? undefined : toAccount(row);
  }

  async list(): Promise<DashboardAccount[]> {
    return (await this.#database.all<AccountRow>('SELECT * FROM dashboard_accounts ORDER BY user_id')).map(toAccount);
  }

  /** Saves the account; a leftover row of a deleted user with the same username gives way. */
  async save(account: DashboardAccount): Promise<void> {
    await this.#database.transaction(async () => {
      await this.#database.run('DELETE FROM dashboard_accounts WHERE username = ? AND user_id <> ?', account.username, account.userId);
      await this.#database.run(`
        INSERT INTO dashboard_accounts (user_id, username, superset_user_id, password_encrypted, active, role, synced_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (user_id) DO UPDATE SET username = excluded.username, superset_user_id = excluded.superset_user_id,
          password_encrypted = excluded.password_encrypted, active = excluded.active, role = excluded.role, synced_at = excluded.synced_at
      `, account.userId, account.username, account.supersetUserId, account.passwordEncrypted, account.active ? 1 : 0, account.role, account.syncedAt);
    });
  }

  async delete(userId: number): Promise<void> {
    await this.#database.run('DELETE FROM dashboard_accounts WHERE user_id = ?', userId);
  }
}
