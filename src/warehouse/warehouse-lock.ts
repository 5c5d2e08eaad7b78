import { takeCatalogWriterLock, type HeldLock } from './catalog-writer-lock.ts';
import type { LakeLocation } from './lake-location.ts';
import { whileWriting } from './lake-writes.ts';
import { takeWriterLockFile } from './writer-lock-file.ts';

/**
 * The one door to the warehouse: holders run one at a time, in the order they asked, and each also holds
 * the lock between processes for its whole turn (a model run holds it while dbt writes): the embedded lake's
 * `writer.lock` file, which another process's writer finds taken (WarehouseBusyError), or a PostgreSQL
 * catalog's advisory lock, for which the writers of every host sharing the lake wait in line. Readers are told
 * the lake is being written meanwhile (whileWriting): a model run's dbt commits without Quarry's write connection.
 */
export class WarehouseLock {
  readonly #lake: LakeLocation;
  readonly #writerLockFile: string;
  #queue: Promise<unknown> = Promise.resolve();

  /** `writerLockFile`: the embedded lake's lock between processes of one host (the project's `warehouse/writer.lock`). */
  constructor(lake: LakeLocation, writerLockFile: string) {
    this.#lake = lake;
    this.#writerLockFile = writerLockFile;
  }

  hold<T>(work: () => Promise<T>, signal: AbortSignal): Promise<T> {
    const turn = this.#queue.then(async () => {
      signal.throwIfAborted();
      const acrossProcesses = await this.#takeAcrossProcesses(signal);
      try {
        return await whileWriting(this.#lake, work);
      } finally {
        await acrossProcesses.release();
      }
    });
    this.#queue = turn.catch(() => undefined); // a failed holder must not block the next one
    return turn;
  }

  /** Resolves when every holder so far has finished. */
  async idle(): Promise<void> {
    await this.#queue;
  }

  #takeAcrossProcesses(signal: AbortSignal): Promise<HeldLock> {
    const { catalog } = this.#lake;
    return catalog.kind === 'postgres' ? takeCatalogWriterLock(catalog, signal) : takeWriterLockFile(this.#writerLockFile);
  }
}
