import type { DatabaseSync, StatementSync } from 'node:sqlite';

/**
 * The counter that triggers bump whenever a user, a session or an API key changes in a way that matters to
 * authentication (see the migration that made it). Read on every authenticated request, so its statement is
 * prepared once and answers a row as an array (no object to build per request).
 */
export class CredentialGenerationRepository {
  readonly #read: StatementSync;
  constructor(database: DatabaseSync) {
    this.#read = database.prepare('SELECT generation FROM credential_generation WHERE id = 1');
    this.#read.setReturnArrays(true);
  }

  current(): number {
    return (this.#read.get() as unknown as [number])[0];
  }
}
