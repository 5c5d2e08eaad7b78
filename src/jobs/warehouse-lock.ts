/** The one door to the warehouse file: holders run one at a time, in the order they asked. */
export class WarehouseLock {
  #queue: Promise<unknown> = Promise.resolve();

  hold<T>(work: () => Promise<T>, signal: AbortSignal): Promise<T> {
    const turn = this.#queue.then(() => {
      signal.throwIfAborted();
      return work();
    });
    this.#queue = turn.catch(() => undefined); // a failed holder must not block the next one
    return turn;
  }

  /** Resolves when every holder so far has finished. */
  async idle(): Promise<void> {
    await this.#queue;
  }
}
