import type { DatabaseSync } from 'node:sqlite';

/** The OAuth tokens sources use, one per provider, stored sealed (the caller encrypts with the project key). */
export class SourceOAuthTokensRepository {
  readonly #database: DatabaseSync;
  constructor(database: DatabaseSync) {
    this.#database = database;
  }

  find(provider: string): string | undefined {
    const row = this.#database.prepare('SELECT token_encrypted FROM source_oauth_tokens WHERE provider = ?').get(provider) as
      { token_encrypted: string } | undefined;
    return row?.token_encrypted;
  }

  save(provider: string, sealed: string, now: string): void {
    this.#database.prepare(`
      INSERT INTO source_oauth_tokens (provider, token_encrypted, updated_at) VALUES (?, ?, ?)
      ON CONFLICT (provider) DO UPDATE SET token_encrypted = excluded.token_encrypted, updated_at = excluded.updated_at`)
      .run(provider, sealed, now);
  }
}
