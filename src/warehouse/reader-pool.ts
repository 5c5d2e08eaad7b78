import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { LakeLocation } from './lake-location.ts';
import { settledToken } from './lake-writes.ts';
import { openSandboxedReaders, type ReaderLimits } from './sandboxed-reader.ts';

/** How long an idle reader keeps the snapshot it read: a held snapshot keeps the catalog's WAL from restarting. */
const SNAPSHOT_KEPT_IDLE_MS = 1000;

/** A pooled connection and what its read transaction has seen. */
interface Reader {
  readonly connection: DuckDBConnection;
  /** Whether the transaction has read, so its snapshot and catalog are loaded. */
  hasRead: boolean;
  /** The lake's settled token seen before the transaction's first read (see settledToken); undefined: not to be reused. */
  token: string | undefined;
  idleTimer?: NodeJS.Timeout | undefined;
}

/** What a query is lent: the connection, and whether its first statement opens the lake's catalog (so takes a turn). */
export interface LentReader {
  readonly connection: DuckDBConnection;
  readonly opensCatalog: boolean;
}

/**
 * Sandboxed connections on one instance, lent one query at a time, each inside a read transaction: its
 * statements read one snapshot, and DuckLake reads the lake's catalog once for them all, not once per statement
 * (a query's check, its prepare and its execution: ~2 ms each). DuckLake takes the snapshot at the transaction's
 * first read. The next query on the connection keeps the transaction while nothing has been written since that
 * read (settledToken), so it reads the latest snapshot without loading the catalog again (1.5 ms of a 1M-row
 * aggregate's 12); otherwise it gets a new transaction, begun when the connection was handed back where it can be,
 * so neither its BEGIN nor the ROLLBACK waits in a query's path. test/warehouse/lake.test.ts holds reads to the
 * latest snapshot.
 */
class LentReaders {
  readonly #lake: LakeLocation;
  readonly #instance: DuckDBInstance;
  readonly #idle: Reader[];
  readonly #waiting: ((reader: Reader) => void)[] = [];
  #lent = 0;
  #retired = false;

  private constructor(lake: LakeLocation, instance: DuckDBInstance, readers: Reader[]) {
    this.#lake = lake;
    this.#instance = instance;
    this.#idle = readers;
  }

  /** Lends the connections, each waiting in its first read transaction. */
  static async begin(lake: LakeLocation, instance: DuckDBInstance, connections: DuckDBConnection[]): Promise<LentReaders> {
    for (const connection of connections) await beginRead(connection);
    return new LentReaders(lake, instance, connections.map((connection) => ({ connection, hasRead: false, token: undefined })));
  }

  async lend<T>(work: (reader: LentReader) => Promise<T>): Promise<T> {
    const reader = this.#idle.pop() ?? await new Promise<Reader>((resolve) => { this.#waiting.push(resolve); });
    clearTimeout(reader.idleTimer);
    this.#lent += 1;
    let keepSnapshot = false;
    try {
      const token = settledToken(this.#lake);
      if (reader.hasRead && (token === undefined || token !== reader.token)) await restartRead(reader);
      if (!reader.hasRead) reader.token = token;
      const opensCatalog = !reader.hasRead;
      reader.hasRead = true;
      const result = await work({ connection: reader.connection, opensCatalog });
      // A failed statement (an error, a time limit) has aborted the transaction.
      keepSnapshot = reader.token !== undefined;
      return result;
    } finally {
      // The borrower has its answer before a transaction ends and the next begins.
      void this.#handBack(reader, keepSnapshot);
    }
  }

  async #handBack(reader: Reader, keepSnapshot: boolean): Promise<void> {
    if (!keepSnapshot) await restartRead(reader);
    this.#lent -= 1;
    const next = this.#waiting.shift();
    if (next) {
      next(reader);
    } else {
      this.#idle.push(reader);
      if (reader.hasRead) reader.idleTimer = setTimeout(() => { void this.#restartIdle(reader); }, SNAPSHOT_KEPT_IDLE_MS).unref();
    }
    if (this.#retired) this.#closeWhenUnused();
  }

  async #restartIdle(reader: Reader): Promise<void> {
    const at = this.#idle.indexOf(reader);
    if (at < 0) return;
    this.#idle.splice(at, 1);
    this.#lent += 1;
    await this.#handBack(reader, false);
  }

  /** Closes the connections once no query uses them. */
  retire(): void {
    this.#retired = true;
    this.#closeWhenUnused();
  }

  #closeWhenUnused(): void {
    if (this.#lent > 0 || this.#waiting.length > 0) return;
    for (const reader of this.#idle.splice(0)) {
      clearTimeout(reader.idleTimer);
      reader.connection.closeSync();
    }
    this.#instance.closeSync();
  }
}

/**
 * Sandboxed readers of the lake, kept open between queries (opening one costs more than a small query) and
 * shared within one memory limit; at most `size` queries run at once, the rest wait. Each query reads the
 * lake's latest snapshot when it starts, so nothing is reopened when a job commits.
 */
export class ReaderPool {
  readonly #lake: LakeLocation;
  readonly #size: number;
  readonly #limits: ReaderLimits;
  #readers: Promise<LentReaders> | undefined;
  #closed = false;

  constructor(lake: LakeLocation, options: { size: number; limits: ReaderLimits }) {
    this.#lake = lake;
    this.#size = options.size;
    this.#limits = options.limits;
  }

  async lend<T>(work: (reader: LentReader) => Promise<T>): Promise<T> {
    if (this.#closed) throw new Error('The warehouse readers are closed');
    if (this.#readers === undefined) {
      const readers = openSandboxedReaders(this.#lake, this.#size, this.#limits).then(({ instance, connections }) => LentReaders.begin(this.#lake, instance, connections));
      this.#readers = readers;
      readers.catch(() => { if (this.#readers === readers) this.#readers = undefined; });
    }
    return (await this.#readers).lend(work);
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

/** Ends the reader's transaction and begins the next; its snapshot is taken at its first read. */
async function restartRead(reader: Reader): Promise<void> {
  await reader.connection.run('ROLLBACK').catch(() => undefined);
  await beginRead(reader.connection).catch(() => undefined);
  reader.hasRead = false;
  reader.token = undefined;
}
