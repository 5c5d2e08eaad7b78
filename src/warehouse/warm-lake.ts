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
  retired: boolean;
  idle: NodeJS.Timeout | undefined;
  /** Set once the instance is being closed. */
  closed: Promise<void> | undefined;
}

/**
 * One DuckDB instance with the lake attached, kept open between small writes and shared by those that run at once,
 * each on a connection of its own. Opening the lake (an instance, its extensions, the catalog attached) costs
 * 60-140 ms alone and several times that when a worker's syncs open it side by side on busy cores, against a few
 * milliseconds for a connection. The instance runs one thread: each write's statements run on its own calling
 * thread, and none spins waiting for another's tasks. DuckLake reads the catalog's latest snapshot as each
 * transaction starts, so what other processes commit meanwhile is seen. An instance a write failed on is not
 * given to the next (its catalog connection may be what failed), and an idle one is closed.
 */
export class WarmLake {
  readonly #location: LakeLocation;
  readonly #idleCloseMs: number;
  #current: Opened | undefined;

  constructor(location: LakeLocation, idleCloseMs = DEFAULT_IDLE_CLOSE_MS) {
    this.#location = location;
    this.#idleCloseMs = idleCloseMs;
  }

  async connect(): Promise<WriteConnection> {
    const opened = this.#current ??= this.#open();
    opened.users += 1;
    clearTimeout(opened.idle);
    let connection: DuckDBConnection | undefined;
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
        connection.closeSync();
        this.#release(opened, failed);
      },
    };
  }

  /** Closes the instance, and resolves once it is closed: at once when no write is using it (a process's last step). */
  async close(): Promise<void> {
    const opened = this.#current;
    if (opened === undefined) return;
    this.#retire(opened);
    await opened.closed;
  }

  #open(): Opened {
    const lake = openLakeForWriting(this.#location, { threads: 1 });
    const opened: Opened = { lake, users: 0, retired: false, idle: undefined, closed: undefined };
    // A failed opening is not kept: the next write tries again.
    lake.catch(() => { this.#retire(opened); });
    return opened;
  }

  #release(opened: Opened, failed: boolean): void {
    opened.users -= 1;
    if (failed || opened.retired) {
      this.#retire(opened);
    } else if (opened.users === 0) {
      opened.idle = setTimeout(() => { this.#retire(opened); }, this.#idleCloseMs);
      opened.idle.unref();
    }
  }

  #retire(opened: Opened): void {
    opened.retired = true;
    clearTimeout(opened.idle);
    if (this.#current === opened) this.#current = undefined;
    this.#closeWhenUnused(opened);
  }

  #closeWhenUnused(opened: Opened): void {
    if (opened.users > 0 || opened.closed !== undefined) return;
    opened.closed = opened.lake.then((lake) => lake.close(), () => undefined).catch(() => undefined);
  }
}
