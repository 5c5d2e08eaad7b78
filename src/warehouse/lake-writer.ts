import type { DuckDBConnection } from '@duckdb/node-api';
import { takeCatalogWriterLock, type HeldLock } from './catalog-writer-lock.ts';
import type { CommitLabel } from './commit-label.ts';
import type { JobInstanceOptions } from './job-instance.ts';
import { openLakeForWriting } from './lake-connection.ts';
import { lakeMetadataSchema, type LakeLocation } from './lake-location.ts';
import { whileWriting } from './lake-writes.ts';
import { inTransaction } from './transaction.ts';
import { WarmLake, type WriteConnection } from './warm-lake.ts';
import { takeWriterLockFile } from './writer-lock-file.ts';

/** The lake opened for writing, as a write's work is handed it. */
export interface LakeWrite {
  /**
   * The writer's connection, with the lake as its default database. A statement run on it outside `transaction`
   * commits on its own and carries no label: it is for reading (what this writer committed included). A small write's
   * instance is shared (WriteOpening): nothing run on it may change the instance (SET GLOBAL, threads, secrets, LOAD).
   */
  readonly connection: DuckDBConnection;
  /**
   * Runs `work` in one transaction, one snapshot carrying the write's label: committed when `work` resolves,
   * rolled back when it throws, and AbortedTransactionError when a statement failed inside it and `work` went on.
   */
  readonly transaction: <T>(work: (connection: DuckDBConnection) => Promise<T>) => Promise<T>;
  /** Where the connection finds the lake's own catalog tables (lakeMetadataSchema), in whichever database holds them. */
  readonly metadata: string;
}

/**
 * How one write opens the lake: the DuckDB instance's threads (JobInstanceOptions). A small write asks for one;
 * with a PostgreSQL catalog it is then given a connection to the process's warm instance (WarmLake), which such
 * writes share, instead of an instance of its own.
 */
export type WriteOpening = JobInstanceOptions;

export interface WriteOptions extends WriteOpening {
  /** Aborting gives up the place in line, or interrupts the statement running. */
  readonly signal: AbortSignal;
  /** The job every transaction of the write commits for; none only for writes no job makes (start-up, tests). */
  readonly label?: CommitLabel | undefined;
  /**
   * For a write that changes only tables of its own, their name (a sync's source: its raw tables). With a PostgreSQL
   * catalog, such writes of other names, of this process or another, run beside it, their commits one after another
   * (DuckLake merges commits to different tables); one of the same name, and every other write, waits for it. With
   * the embedded catalog, turns are one at a time whatever their name.
   */
  readonly alongside?: string | undefined;
}

/** The writer's turn as its holder uses it: the lake opened for writing, as often as it needs, within the turn. */
export interface WriterTurn {
  /** Opens the lake for writing, runs `work` with it as LakeWriter.write does, and lets it go; only while the turn lasts. */
  readonly write: <T>(work: (write: LakeWrite) => Promise<T>, opening?: WriteOpening) => Promise<T>;
}

/**
 * The lake's writer. With the embedded catalog, turns run one at a time, in the order they were asked for, a failed
 * one not blocking the next, and each holds the `writer.lock` file for its whole length, which another process's
 * writer finds taken (WarehouseBusyError). With a PostgreSQL catalog, the catalog's advisory locks are the line, for
 * this process's turns as for every other host's: writes `alongside` of different tables hold it together (a worker's
 * syncs load side by side, each on a connection of its own), every other write alone. Readers are told the lake is
 * being written meanwhile (whileWriting), since a turn may let another process write (a model run's dbt commits on
 * its own connection).
 */
export class LakeWriter {
  readonly #lake: LakeLocation;
  readonly #writerLockFile: string;
  /**
   * Only with a PostgreSQL catalog, whose small writes run side by side, each having paid for opening the lake on
   * busy cores. The embedded catalog's writes run one at a time, where an instance of their own costs 60-140 ms, and
   * leave its file closed between turns, which other processes' writers (the CLI) take.
   */
  readonly #warm: WarmLake | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  /** `writerLockFile`: the embedded lake's lock between processes of one host (the project's `warehouse/writer.lock`). */
  constructor(lake: LakeLocation, writerLockFile: string) {
    this.#lake = lake;
    this.#writerLockFile = writerLockFile;
    this.#warm = lake.catalog.kind === 'postgres' ? new WarmLake(lake) : undefined;
  }

  /**
   * Runs `work` as the lake's one writer, in a turn of its own: the lake opened for writing, each transaction one
   * snapshot labelled `label`, a running statement interrupted when `signal` aborts, the lake let go after.
   * Resolves with what `work` returned; readers see what it committed from then on.
   */
  write<T>(work: (write: LakeWrite) => Promise<T>, options: WriteOptions): Promise<T> {
    return this.turn((turn) => turn.write(work, { threads: options.threads }), options);
  }

  /**
   * Holds the writer's turn while `work` runs, for a job that writes several times, or lets another process
   * write (dbt), with nothing else writing in between; `turn.write` opens the lake within it.
   */
  turn<T>(work: (turn: WriterTurn) => Promise<T>, options: WriteOptions): Promise<T> {
    const { signal, label } = options;
    const previous = this.#queue;
    const waitFor = this.#lake.catalog.kind === 'postgres' ? Promise.resolve() : previous;
    const turn = inLine(waitFor, signal).then(async () => {
      signal.throwIfAborted();
      const acrossProcesses = await this.#takeAcrossProcesses(signal, options.alongside);
      let held = true;
      try {
        return await whileWriting(this.#lake, () => work({
          write: (writeWork, opening) => {
            if (!held) return Promise.reject(new Error('The writer\'s turn has ended; a write needs a turn of its own'));
            return writeInTurn(this.#lake, writeWork, { signal, label, open: () => this.#open(opening), commitInLine: acrossProcesses.commitInLine });
          },
        }));
      } finally {
        held = false;
        await acrossProcesses.release();
      }
    });
    // idle() and the embedded catalog's next turn wait for this one and for every turn before it (this one may have
    // left the line early); a failed turn must not block them.
    this.#queue = Promise.all([previous, turn.catch(() => undefined)]).then(() => undefined);
    return turn;
  }

  /** Resolves when every turn asked for so far has ended. */
  async idle(): Promise<void> {
    await this.#queue;
  }

  /** Waits for the turns asked for so far, then closes the warm instance, if any (a process's last step). */
  async close(): Promise<void> {
    await this.idle();
    await this.#warm?.close();
  }

  async #open(opening: WriteOpening | undefined): Promise<WriteConnection> {
    if (this.#warm !== undefined && opening?.threads === 1) return this.#warm.connect();
    const writer = await openLakeForWriting(this.#lake, opening);
    return { connection: writer.connection, release: () => writer.close() };
  }

  #takeAcrossProcesses(signal: AbortSignal, alongside: string | undefined): Promise<HeldLock> {
    const { catalog } = this.#lake;
    return catalog.kind === 'postgres' ? takeCatalogWriterLock(catalog, signal, alongside) : takeWriterLockFile(this.#writerLockFile);
  }
}

/** Resolves once `previous` has, or rejects as soon as `signal` aborts: a write given up leaves the line at once. */
function inLine(previous: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const giveUp = (): void => { reject(signal.reason as Error); };
    signal.addEventListener('abort', giveUp, { once: true });
    void previous.then(() => {
      signal.removeEventListener('abort', giveUp);
      resolve();
    });
  });
}

/** Opens the lake for writing, runs `work`, interrupting its statement when `signal` aborts, and lets the lake go. */
async function writeInTurn<T>(
  lake: LakeLocation, work: (write: LakeWrite) => Promise<T>,
  options: { signal: AbortSignal; label: CommitLabel | undefined; open: () => Promise<WriteConnection>; commitInLine: HeldLock['commitInLine'] },
): Promise<T> {
  const { signal, label } = options;
  signal.throwIfAborted();
  const writer = await options.open();
  const { connection } = writer;
  const interrupt = (): void => { connection.interrupt(); };
  signal.addEventListener('abort', interrupt, { once: true });
  let failed = true;
  try {
    const result = await work({
      connection, metadata: lakeMetadataSchema(lake), transaction: (transactionWork) => inTransaction(connection, { label, commitInLine: options.commitInLine }, () => transactionWork(connection)),
    });
    failed = false;
    return result;
  } finally {
    signal.removeEventListener('abort', interrupt);
    await writer.release(failed);
  }
}
