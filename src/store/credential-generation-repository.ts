import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { CommitSignal } from './commit-signal.ts';
import type { PlatformDatabase } from './platform-database.ts';

/**
 * The counter that triggers bump whenever a user, a session or an API key changes in a way that matters to
 * authentication (see the migration that made it). Asked on every authenticated request, so it is read from the
 * database only when the commit signal says something was committed since (two file locks per read otherwise),
 * and its statement is prepared once and answers a row as an array (no object to build per request).
 */
export class CommitSignalledCredentialGeneration {
  readonly #read: StatementSync;
  readonly #commits: CommitSignal;
  #generation = 0;

  constructor(database: DatabaseSync, commits: CommitSignal) {
    this.#read = database.prepare('SELECT generation FROM credential_generation WHERE id = 1');
    this.#read.setReturnArrays(true);
    this.#commits = commits;
  }

  async current(): Promise<number> {
    if (this.#commits.mayHaveChanged()) this.#generation = (this.#read.get() as unknown as [number])[0];
    return this.#generation;
  }
}

/**
 * The counter in a PostgreSQL store, which processes on other hosts move: read on each ask, one indexed row on a
 * pooled connection, so a change committed anywhere counts from the very next request.
 */
export class ReadCredentialGeneration {
  readonly #database: PlatformDatabase;

  constructor(database: PlatformDatabase) {
    this.#database = database;
  }

  async current(): Promise<number> {
    const row = await this.#database.get<{ generation: number }>('SELECT generation FROM credential_generation WHERE id = 1');
    return row?.generation ?? 0;
  }
}
