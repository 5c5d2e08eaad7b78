import type { PlatformDatabase } from './platform-database.ts';

export interface ApiKeyRecord {
  readonly id: string;
  readonly userId: number;
  readonly name: string;
  readonly prefix: string;
  readonly expiresAt: string | null;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

interface ApiKeyRow {
  id: string;
  user_id: number;
  name: string;
  prefix: string;
  expires_at: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface NewApiKey {
  id: string;
  userId: number;
  name: string;
  keyHash: string;
  prefix: string;
  expiresAt: string | null;
}

export class ApiKeysRepository {
  readonly #database: PlatformDatabase;
  constructor(database: PlatformDatabase) {
    this.#database = database;
  }

  async insert(key: NewApiKey, now: string): Promise<ApiKeyRecord> {
    const row = await this.#database.get<ApiKeyRow>(`
      INSERT INTO api_keys (id, user_id, name, key_hash, prefix, expires_at, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      key.id, key.userId, key.name, key.keyHash, key.prefix, key.expiresAt, now,
    ) as ApiKeyRow;
    return toRecord(row);
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.#database.get<ApiKeyRow>('SELECT * FROM api_keys WHERE key_hash = ?', keyHash);
    return row ? toRecord(row) : undefined;
  }

  async listActiveForUser(userId: number): Promise<ApiKeyRecord[]> {
    return (await this.#database.all<ApiKeyRow>('SELECT * FROM api_keys WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at DESC', userId))
      .map(toRecord);
  }

  async markUsed(id: string, now: string): Promise<void> {
    await this.#database.run('UPDATE api_keys SET last_used_at = ? WHERE id = ?', now, id);
  }

  /** Revokes a key of that user; false when there is no such unrevoked key. */
  async revoke(id: string, userId: number, now: string): Promise<boolean> {
    const changes = await this.#database.run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL', now, id, userId);
    return changes > 0;
  }

  /** Revokes every unrevoked key of that user; returns how many. */
  async revokeAllForUser(userId: number, now: string): Promise<number> {
    return await this.#database.run('UPDATE api_keys SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL', now, userId);
  }
}

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return Object.freeze({
    id: row.id,
    userId: row.user_id,
    name: row.name,
    prefix: row.prefix,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  });
}
