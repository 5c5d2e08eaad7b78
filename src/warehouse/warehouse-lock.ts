import { takeCatalogWriterLock, type LakeLocation } from '../warehouse/index.ts';

/**
 * The one door to the warehouse: holders run one at a time, in the order they asked. With a PostgreSQL
 * catalog each holder also holds the catalog's advisory lock, so the writers of every host sharing the
 * lake take turns too (a model run holds it while dbt writes).
 */
export class WarehouseLock {
  readonly #lake: LakeLocation;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(lake: LakeLocation) {
    this.#lake = lake;
  }

  hold<T>(work: () => Promise<T>, signal: AbortSignal): Promise<T> {
    const { catalog } = this.#lake;
    const turn = this.#queue.then(async () => {
      signal.throwIfAborted();
      if (catalog.kind !== 'postgres') return work();
      const acrossHosts = await takeCatalogWriterLock(catalog, signal);
      try {
        return await work();
      } finally {
        await acrossHosts.release();
      }
    });
    this.#queue = turn.catch(() => undefined); // a failed holder must not block the next one
    return turn;
  }

  /** Resolves when every holder so far has finished. */
  async idle(): Promise<void> {
    await this.#queue;
  }
}
