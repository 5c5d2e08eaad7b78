import type { DuckDBConnection } from '@duckdb/node-api';
import { openLakeForWriting, type LakeConnection } from './lake-connection.ts';
import type { LakeLocation } from './lake-location.ts';

/** How long the instance stays open after its last write: a burst of syncs keeps it, an idle process gives back its memory. */
const DEFAULT_IDLE_CLOSE_MS = 10_000;

/** The lake opened for one write: a connection of its own (to the warm instance, or to an instance of its own). */
export interface WriteConnection {
  readonly connection: DuckDBConnection;
  /** Closes the connection; `failed` when the write failed, so the next ones get an instance of their own. */
  release(failed: boolean): Promise<void>;
}

interface Opened {
  readonly lake: Promise<LakeConnection>;
  users: number;
  closing: boolean;
  idle: NodeJS.Timeout | undefined;
  /** Resolves once the instance is closed. */
  readonly closed: Promise<void>;
  readonly tellClosed: () => void;
}

/**
 * One DuckDB instance with the lake attached, kept open between small writes and shared by those that run at once,
 * each on a connection of its own. Opening the lake (an instance, its extensions, the catalog attached) costs
 * 60-140 ms alone and several times that when a worker's syncs open it side by side on busy cores, against a few
 * milliseconds for a connection. The instance runs one thread: each write's statements run on its own calling
 * thread, and none spins waiting for another's tasks. DuckLake reads the catalog's latest snapshot as each
 * transaction starts, so what other processes commit meanwhile is seen, and postgres_scanner connects again to a
 * catalog server that ended its connection (a restart). An instance a write failed on is not given to the next (the
 * failure may have been its own), and an idle one is closed.
 */
export class WarmLake {
  readonly #location: LakeLocation;
  readonly #idleCloseMs: number;
  #current: Opened | undefined;
  /** Every instance not closed yet: the current one, and those retired while writes still used them. */
  readonly #unclosed = new Set<Opened>();

  constructor(location: LakeLocation, idleCloseMs = DEFAULT_IDLE_CLOSE_MS) {
    this.#location = location;
    this.#idleCloseMs = idleCloseMs;
  }

  async connect(): Promise<WriteConnection> {
    const opened = this.#current ??= this.#open();
    opened.users += 1;
    clearTimeout(opened.idle);
    let connection: DuckDBConnection;
    try {
      connection = await (await opened.lake).connectAgain();
    } catch (error) {
      this.#release(opened, true);
      throw error;
    }
    let released = false;
    return {
      connection,
      release: async (failed) => {
        if (released) return;
        released = true;
        try {
          connection.closeSync();
        } finally {
          this.#release(opened, failed);
        }
      },
    };
  }

  /** Closes the instance once the writes using it have let it go, and resolves when every instance is closed. */
  async close(): Promise<void> {
    if (this.#current !== undefined) this.#retire(this.#current);
    await Promise.all([...this.#unclosed].map((opened) => opened.closed));
  }

  #open(): Opened {
    const lake = openLakeForWriting(this.#location, { threads: 1 });
    const { promise: closed, resolve: tellClosed } = Promise.withResolvers<undefined>();
    const opened: Opened = { lake, users: 0, closing: false, idle: undefined, closed, tellClosed: () => { tellClosed(undefined); } };
    this.#unclosed.add(opened);
    // A failed opening is not kept: the next write tries again.
    lake.catch(() => { this.#retire(opened); });
    return opened;
  }

  #release(opened: Opened, failed: boolean): void {
    opened.users -= 1;
    // An instance other than the current one was retired while this write used it.
    if (failed || this.#current !== opened) {
      this.#retire(opened);
    } else if (opened.users === 0) {
      opened.idle = setTimeout(() => { this.#retire(opened); }, this.#idleCloseMs);
      opened.idle.unref();
    }
  }

  #retire(opened: Opened): void {
    clearTimeout(opened.idle);
    if (this.#current === opened) this.#current = undefined;
    this.#closeWhenUnused(opened);
  }

  #closeWhenUnused(opened: Opened): void {
    if (opened.users > 0 || opened.closing) return;
    opened.closing = true;
    // An instance that failed to open has nothing to close; one that fails to close is gone with the process.
    void opened.lake.then((lake) => lake.close()).catch(() => undefined).finally(() => {
      this.#unclosed.delete(opened);
      opened.tellClosed();
    });
  }
}
