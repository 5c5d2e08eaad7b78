/** One run per key at a time: whoever asks while one is under way shares its outcome; the first to ask after it ends starts the next. */
export class SharedRuns<K, V> {
  readonly #running = new Map<K, Promise<V>>();

  run(key: K, start: () => Promise<V>): Promise<V> {
    const running = this.#running.get(key);
    if (running !== undefined) return running;
    const run = start().finally(() => { this.#running.delete(key); });
    this.#running.set(key, run);
    return run;
  }
}
