import type { DatabaseSync, StatementSync } from 'node:sqlite';

/**
 * The counter that triggers bump whenever a user, a session or an API key changes in a way that matters to
 * authentication (see the migration that made it). Read on every authenticated request, so its statement is
 * prepared once.
 */
export class CredentialGenerationRepository {
  readonly #read: StatementSync;
  constructor(database: DatabaseSync) {
    this.#read = database.prepare('SELECT generation FROM credential_generation WHERE id = 1');
  }

  current(): number {
    return (this.#read.get() as { generation: number }).generation;
  }
}
