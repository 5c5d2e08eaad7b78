import type { PlatformDatabase } from './platform-database.ts';

/** The OAuth tokens sources use, one per provider, stored sealed (the caller encrypts with the project key). */
export class SourceOAuthTokensRepository {
  readonly #database: PlatformDatabase;
  constructor(database: PlatformDatabase) {
    this.#database = database;
  }

  async find(provider: string): Promise<string | undefined> {
    const row = await this.#database.get<{ token_encrypted: string }>('SELECT token_encrypted FROM source_oauth_tokens WHERE provider = ?', provider);
    return row?.token_encrypted;
  }

  async save(provider: string, sealed: string, now: string): Promise<void> {
    await this.#database.run(`
      INSERT INTO source_oauth_tokens (provider, token_encrypted, updated_at) VALUES (?, ?, ?)
      ON CONFLICT (provider) DO UPDATE SET token_encrypted = excluded.token_encrypted, updated_at = excluded.updated_at`,
      provider, sealed, now);
  }
}
