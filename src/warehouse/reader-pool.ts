import { realpath } from 'node:fs/promises';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { openSandboxedReaders, type ReaderLimits } from './sandboxed-reader.ts';

/** The sandboxed connections of one warehouse snapshot, lent one query at a time. */
class SnapshotReaders {
  readonly #instance: DuckDBInstance;
  readonly #idle: DuckDBConnection[];
  readonly #waiting: ((connection: DuckDBConnection) => void)[] = [];
  #lent = 0;
  #retired = false;

  constructor(instance: DuckDBInstance, connections: DuckDBConnection[]) {
    this.#instance = instance;
    this.#idle = connections;
  }

  async lend<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    const connection = this.#idle.pop() ?? await new Promise<DuckDBConnection>((resolve) => { this.#waiting.push(resolve); });
    this.#lent += 1;
    try {
      return await work(connection);
    } finally {
      this.#lent -= 1;
      const next = this.#waiting.shift();
      if (next) next(connection);
      else this.#idle.push(connection);
      if (this.#retired) this.#closeWhenUnused();
    }
  }

  /** Closes the snapshot's connections once no query uses them (a newer snapshot serves new queries). */
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
 * Sandboxed readers of the current snapshot of one warehouse file, kept open between queries (opening one costs
 * more than a small query) and shared within one memory limit; at most `size` queries run at once, the rest wait.
 * When `file` resolves to a newer snapshot, new queries get readers of it and the old ones close when done.
 */
export class ReaderPool {
  readonly #file: string;
  readonly #size: number;
  readonly #limits: ReaderLimits;
  #current: { snapshot: string; readers: Promise<SnapshotReaders> } | undefined;
  #closed = false;

  constructor(file: string, options: { size: number; limits: ReaderLimits }) {
    this.#file = file;
    this.#size = options.size;
    this.#limits = options.limits;
  }

  async lend<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    if (this.#closed) throw new Error('The warehouse readers are closed');
    const snapshot = await realpath(this.#file);
    if (this.#current?.snapshot !== snapshot) {
      const previous = this.#current;
      const readers = openSandboxedReaders(snapshot, this.#size, this.#limits).then(({ instance, connections }) => new SnapshotReaders(instance, connections));
      this.#current = { snapshot, readers };
      readers.catch(() => { if (this.#current?.readers === readers) this.#current = undefined; });
      void previous?.readers.then((old) => { old.retire(); }, () => undefined);
    }
    return (await this.#current.readers).lend(work);
  }

  /** Closes every reader once its query ends. */
  close(): void {
    this.#closed = true;
    void this.#current?.readers.then((readers) => { readers.retire(); }, () => undefined);
    this.#current = undefined;
  }
}
