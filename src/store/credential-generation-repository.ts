import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { CommitSignal } from './commit-signal.ts';

/**
 * The counter that triggers bump whenever a user, a session or an API key changes in a way that matters to
 * authentication (see the migration that made it). Asked on every authenticated request, so it is read from the
 * database only when the commit signal says something was committed since (two file locks per read otherwise),
 * and its statement is prepared once and answers a row as an array (no object to build per request).
 */
export class CredentialGenerationRepository {
  readonly #read: StatementSync;
  readonly #commits: CommitSignal;
  #generation = 0;

  constructor(database: DatabaseSync, commits: CommitSignal) {
    this.#read = database.prepare('SELECT generation FROM credential_generation WHERE id = 1');
    this.#read.setReturnArrays(true);
    this.#commits = commits;
  }

  current(): number {
    if (this.#commits.mayHaveChanged()) this.#generation = (this.#read.get() as unknown as [number])[0];
    return this.#generation;
  }
}
