import { closeSync, openSync, readSync } from 'node:fs';

/**
 * The WAL-index header at the start of the -shm file: two copies of 48 bytes that SQLite rewrites on every commit
 * to the database, from any process (its change counter moves each time). https://sqlite.org/walformat.html
 */
const HEADER_BYTES = 96;

/**
 * Tells, with one read of a few bytes and no lock, whether anything may have been committed to a WAL-mode
 * database since the last look, by any process. It answers "maybe" whenever it cannot tell (no -shm file, a
 * header read while a writer rewrites it), so a caller that re-reads the database on "maybe" misses nothing.
 */
export class CommitSignal {
  readonly #fd: number | undefined;
  readonly #seen = Buffer.alloc(HEADER_BYTES);
  readonly #read = Buffer.alloc(HEADER_BYTES);
  #hasSeen = false;

  /** Open it after SQLite has opened the database in WAL mode, so that the -shm file exists. */
  constructor(databaseFile: string) {
    this.#fd = openShm(`${databaseFile}-shm`);
  }

  /**
   * Whether a commit may have happened since the previous call that answered true (always true the first time).
   * The caller reads what it caches after this answers true, so a commit that lands in between is seen next time.
   */
  mayHaveChanged(): boolean {
    if (this.#fd === undefined) return true;
    if (readSync(this.#fd, this.#read, 0, HEADER_BYTES, 0) !== HEADER_BYTES) return true;
    if (this.#hasSeen && this.#read.equals(this.#seen)) return false;
    this.#read.copy(this.#seen);
    this.#hasSeen = true;
    return true;
  }

  /**
   * Call only after the database connection is closed: closing any descriptor of a file drops every POSIX lock
   * this process holds on it, SQLite's locks on the -shm file included.
   */
  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
  }
}

function openShm(file: string): number | undefined {
  try {
    return openSync(file, 'r');
  } catch {
    return undefined;
  }
}
