import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { LakeLocation } from './lake-location.ts';
import { openSandboxedReaders, type ReaderLimits } from './sandboxed-reader.ts';

/**
 * Sandboxed connections on one instance, lent one query at a time, each inside a read transaction: its
 * statements read one snapshot, and DuckLake reads the lake's catalog once for them all, not once per statement
 * (a query's check, its prepare and its execution: ~2 ms each). The transaction begins when the connection is
 * handed back, so neither its BEGIN nor its ROLLBACK waits in a query's path; DuckLake takes the snapshot at the
 * transaction's first read, so a query still reads the latest one (test/warehouse/lake.test.ts holds it to that).
 */
class LentReaders {
  readonly #instance: DuckDBInstance;
  readonly #idle: DuckDBConnection[];
  readonly #waiting: ((connection: DuckDBConnection) => void)[] = [];
  #lent = 0;
  #retired = false;

  private constructor(instance: DuckDBInstance, connections: DuckDBConnection[]) {
    this.#instance = instance;
    this.#idle = connections;
  }

  /** Lends the connections, each waiting in its first read transaction. */
  static async begin(instance: DuckDBInstance, connections: DuckDBConnection[]): Promise<LentReaders> {
    for (const connection of connections) await beginRead(connection);
    return new LentReaders(instance, connections);
  }

  async lend<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    const connection = this.#idle.pop() ?? await new Promise<DuckDBConnection>((resolve) => { this.#waiting.push(resolve); });
    this.#lent += 1;
    try {
      return await work(connection);
    } finally {
      // The borrower has its answer before this transaction ends and the next begins.
      void this.#renew(connection);
    }
  }

  /** Ends the connection's read transaction, begins the next one, and hands it to whoever waits. */
  async #renew(connection: DuckDBConnection): Promise<void> {
    await connection.run('ROLLBACK').catch(() => undefined);
    await beginRead(connection).catch(() => undefined);
    this.#lent -= 1;
    const next = this.#waiting.shift();
    if (next) next(connection);
    else this.#idle.push(connection);
    if (this.#retired) this.#closeWhenUnused();
  }

  /** Closes the connections once no query uses them. */
  retire(): void {
    this.#retired = true;
    this.#closeWhenUnused();
  }

  #closeWhenUnused(): void {
    if (this.#lent > 0 || this.#waiting.length > 0) return;
    for (const connection of this.#idle.splice(0)) connection.closeSync();
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

  async lend<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    if (this.#closed) throw new Error('The warehouse readers are closed');
    if (this.#readers === undefined) {
      const readers = openSandboxedReaders(this.#lake, this.#size, this.#limits).then(({ instance, connections }) => LentReaders.begin(instance, connections));
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
