import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { LakeLocation } from './lake-location.ts';
import { settledToken } from './lake-writes.ts';
import { openSandboxedReaders, type ReaderLimits } from './sandboxed-reader.ts';

/**
 * Reader sets that broke, kept from the garbage collector: DuckDB aborts the process when it closes a connection
 * whose transaction cannot roll back (the rollback throws in a destructor), and the broken ones cannot.
 */
const ABANDONED = new Set<LentReaders>();

/** The readers a borrower waited for were replaced before its turn: it asks the pool again. */
class ReadersReplacedError extends Error {}

/** A pooled connection and what its read transaction has seen. */
interface Reader {
  readonly connection: DuckDBConnection;
  /** Whether a query has run in the transaction, so its snapshot may be taken. */
  hasRead: boolean;
  /** The lake's settled token seen before the transaction's first read (see settledToken); undefined: not to be reused. */
  token: string | undefined;
  /** When the transaction's first query began (performance.now()). */
  firstReadAt: number;
  idleTimer?: NodeJS.Timeout | undefined;
}

/**
 * Sandboxed connections on one instance, lent one query at a time, each inside a read transaction: its
 * statements read one snapshot, and DuckLake reads the lake's catalog once for them all, not once per statement
 * (a query's check, its prepare and its execution: ~2 ms each). DuckLake takes the snapshot at the transaction's
 * first read. The next query on the connection keeps the transaction while nothing has been written since that
 * read (settledToken), so it reads the latest snapshot without loading the catalog again (1.5 ms of a 1M-row
 * aggregate's 12); otherwise it gets a new transaction, begun when the connection was handed back where it can be,
 * so neither its BEGIN nor the ROLLBACK waits in a query's path. A snapshot is kept `snapshotKeptMs` at most, so
 * a commit made past Quarry's writers (a `dbt run` in a terminal) is read a moment later, and a connection idle for
 * as long lets it go: a DuckLake transaction that has read holds an SQLite read transaction on the catalog, which
 * keeps the catalog's WAL from restarting.
 *
 * A connection that no longer answers after a failed query (or after one that passed but left it unable to) is
 * not lent again: the query may have changed what the instance all of them share does (logging to a file the
 * sandbox refuses failed every later statement), so the set is replaced and its waiting borrowers go to the next.
 * The broken set is never closed (see ABANDONED).
 */
class LentReaders {
  readonly #lake: LakeLocation;
  readonly #instance: DuckDBInstance;
  readonly #snapshotKeptMs: number;
  readonly #idle: Reader[];
  readonly #waiting: ((reader: Reader | undefined) => void)[] = [];
  readonly #onBroken: () => void;
  /** Readers in use: lent to a query, or being handed back. */
  #lent = 0;
  #retired = false;
  #broken = false;

  private constructor(lake: LakeLocation, instance: DuckDBInstance, readers: Reader[], snapshotKeptMs: number, onBroken: () => void) {
    this.#lake = lake;
    this.#instance = instance;
    this.#idle = readers;
    this.#snapshotKeptMs = snapshotKeptMs;
    this.#onBroken = onBroken;
  }

  /** Lends the connections, each waiting in its first read transaction; `onBroken` hears that they must be replaced. */
  static async begin(
    lake: LakeLocation, instance: DuckDBInstance, connections: DuckDBConnection[], snapshotKeptMs: number, onBroken: () => void,
  ): Promise<LentReaders> {
    for (const connection of connections) await beginRead(connection);
    const readers = connections.map((connection) => ({ connection, hasRead: false, token: undefined, firstReadAt: 0 }));
    return new LentReaders(lake, instance, readers, snapshotKeptMs, onBroken);
  }

  /** Runs `work` on a reader; rejects with ReadersReplacedError, without running it, once the set is broken. */
  async lend<T>(work: (connection: DuckDBConnection) => Promise<T>, options: LendOptions): Promise<T> {
    if (this.#broken) throw new ReadersReplacedError();
    const reader = this.#takeIdle() ?? await new Promise<Reader | undefined>((resolve) => { this.#waiting.push(resolve); });
    if (reader === undefined) throw new ReadersReplacedError();
    let keepsSnapshot = false;
    let failed = true;
    try {
      const token = settledToken(this.#lake);
      const written = token === undefined || token !== reader.token;
      const stale = written || options.freshSnapshot === true || performance.now() - reader.firstReadAt > this.#snapshotKeptMs;
      if (reader.hasRead && stale) await restartRead(reader);
      if (!reader.hasRead) {
        reader.token = token;
        reader.firstReadAt = performance.now();
      }
      reader.hasRead = true;
      const result = await work(reader.connection);
      keepsSnapshot = reader.token !== undefined;
      failed = false;
      return result;
    } finally {
      // The borrower has its answer before a transaction ends and the next begins.
      void this.#handBack(reader, keepsSnapshot, failed);
    }
  }

  #takeIdle(): Reader | undefined {
    if (this.#broken) return undefined;
    const reader = this.#idle.pop();
    if (reader === undefined) return undefined;
    clearTimeout(reader.idleTimer);
    this.#lent += 1;
    return reader;
  }

  /**
   * Gives the reader to whoever waits, else puts it back idle, with its transaction kept when `keepsSnapshot` and
   * the transaction is alive: a borrower may have caught a failed statement, or an interrupt, and still resolved.
   * A reader that still cannot answer in a new transaction after a failure breaks the set (see LentReaders).
   */
  async #handBack(reader: Reader, keepsSnapshot: boolean, failed: boolean): Promise<void> {
    const alive = keepsSnapshot && await isAlive(reader.connection);
    if (!alive) {
      await restartRead(reader);
      if ((failed || keepsSnapshot) && !await isAlive(reader.connection)) this.#break();
    }
    if (this.#broken) {
      this.#lent -= 1;
      this.#idle.push(reader);
      return;
    }
    const next = this.#waiting.shift();
    if (next) {
      next(reader); // still lent, to its next borrower
      return;
    }
    this.#lent -= 1;
    this.#idle.push(reader);
    if (reader.hasRead) reader.idleTimer = setTimeout(() => { void this.#letSnapshotGo(reader); }, this.#snapshotKeptMs).unref();
    if (this.#retired) this.#closeWhenUnused();
  }

  async #letSnapshotGo(reader: Reader): Promise<void> {
    const at = this.#idle.indexOf(reader);
    if (at < 0) return;
    this.#idle.splice(at, 1);
    this.#lent += 1;
    await this.#handBack(reader, false, false);
  }

  #break(): void {
    if (this.#broken) return;
    this.#broken = true;
    ABANDONED.add(this);
    this.#onBroken();
    for (const waiting of this.#waiting.splice(0)) waiting(undefined);
  }

  /** Closes the connections once no query uses them. */
  retire(): void {
    this.#retired = true;
    this.#closeWhenUnused();
  }

  #closeWhenUnused(): void {
    if (this.#broken || this.#lent > 0 || this.#waiting.length > 0) return;
    for (const reader of this.#idle.splice(0)) {
      clearTimeout(reader.idleTimer);
      reader.connection.closeSync();
    }
    this.#instance.closeSync();
  }
}

export interface LendOptions {
  /** Begin a new snapshot even if the one kept is still the latest: the files are read as they are now (health checks them). */
  readonly freshSnapshot?: boolean;
}

export interface ReaderPoolOptions {
  /** At most this many queries run at once; the rest wait. */
  readonly size: number;
  readonly limits: ReaderLimits;
  /** How long a connection keeps the snapshot it read, at most and when idle (see LentReaders). */
  readonly snapshotKeptMs: number;
}

/**
 * Sandboxed readers of the lake, kept open between queries (opening one costs more than a small query) and
 * shared within one memory limit; at most `size` queries run at once, the rest wait. Each query reads the
 * lake's latest snapshot when it starts, so nothing is reopened when a job commits.
 */
export class ReaderPool {
  readonly #lake: LakeLocation;
  readonly #options: ReaderPoolOptions;
  #readers: Promise<LentReaders> | undefined;
  #closed = false;

  constructor(lake: LakeLocation, options: ReaderPoolOptions) {
    this.#lake = lake;
    this.#options = options;
  }

  async lend<T>(work: (connection: DuckDBConnection) => Promise<T>, options: LendOptions = {}): Promise<T> {
    for (;;) {
      if (this.#closed) throw new Error('The warehouse readers are closed');
      try {
        return await (await this.#openReaders()).lend(work, options);
      } catch (error) {
        if (!(error instanceof ReadersReplacedError)) throw error;
      }
    }
  }

  #openReaders(): Promise<LentReaders> {
    if (this.#readers !== undefined) return this.#readers;
    const { size, limits, snapshotKeptMs } = this.#options;
    const forget = (): void => { if (this.#readers === readers) this.#readers = undefined; };
    const readers = openSandboxedReaders(this.#lake, size, limits)
      .then(({ instance, connections }) => LentReaders.begin(this.#lake, instance, connections, snapshotKeptMs, forget));
    this.#readers = readers;
    readers.catch(forget);
    return readers;
  }

  /** Closes every reader once its query ends. */
  close(): void {
    this.#closed = true;
    void this.#readers?.then((readers) => { readers.retire(); }, () => undefined);
    this.#readers = undefined;
  }
}

async function beginRead(connection: DuckDBConnection): Promise<void> {
  await connection.run('BEGIN TRANSACTION');
}

/**
 * Ends the reader's transaction and begins the next, whose snapshot is taken at its first read. A connection that
 * could not begin one (its old transaction still open) is tried again when it is next lent.
 */
async function restartRead(reader: Reader): Promise<void> {
  reader.token = undefined;
  await reader.connection.run('ROLLBACK').catch(() => undefined);
  try {
    await beginRead(reader.connection);
    reader.hasRead = false;
  } catch {
    reader.hasRead = true;
  }
}

/** Whether the transaction can still run statements: one a statement failed in (or was interrupted in) cannot. */
async function isAlive(connection: DuckDBConnection): Promise<boolean> {
  try {
    await connection.run('SELECT 1');
    return true;
  } catch {
    return false;
  }
}
