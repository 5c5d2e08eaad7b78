import type { DatabaseSync } from 'node:sqlite';

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
  readonly #database: DatabaseSync;
  constructor(database: DatabaseSync) {
    this.#database = database;
  }

  insert(key: NewApiKey, now: string): ApiKeyRecord {
    const row = this.#database.prepare(`
      INSERT INTO api_keys (id, user_id, name, key_hash, prefix, expires_at, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`).get(
      key.id, key.userId, key.name, key.keyHash, key.prefix, key.expiresAt, now,
    ) as unknown as ApiKeyRow;
    return toRecord(row);
  }

  findByHash(keyHash: string): ApiKeyRecord | undefined {
    const row = this.#database.prepare('SELECT * FROM api_keys WHERE key_hash = ?').get(keyHash) as ApiKeyRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  listActiveForUser(userId: number): ApiKeyRecord[] {
    return (this.#database.prepare('SELECT * FROM api_keys WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at DESC')
      .all(userId) as unknown as ApiKeyRow[]).map(toRecord);
  }

  markUsed(id: string, now: string): void {
    this.#database.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(now, id);
  }

  /** Revokes a key of that user; false when there is no such unrevoked key. */
  revoke(id: string, userId: number, now: string): boolean {
    const result = this.#database.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL')
      .run(now, id, userId);
    return Number(result.changes) > 0;
  }

  /** Revokes every unrevoked key of that user; returns how many. */
  revokeAllForUser(userId: number, now: string): number {
    return Number(this.#database.prepare('UPDATE api_keys SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL').run(now, userId).changes);
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
