/** More distinct credentials than this in use at once and the cache starts over rather than grow without bound. */
const MAX_ENTRIES = 10_000;

/**
 * Sessions or API keys already resolved from the platform database, by the hash of their token. Every read first
 * compares the store's credential generation (bumped by triggers on any change to users, sessions or keys, from
 * any process) and forgets everything when it moved, so a revocation, logout, role change, deactivation or
 * password change counts from the very next request. Expiry is time, not a change: callers check it on each hit.
 */
export class CredentialCache<T> {
  readonly #currentGeneration: () => Promise<number>;
  readonly #entries = new Map<string, T>();
  #generation = Number.NaN;

  constructor(currentGeneration: () => Promise<number>) {
    this.#currentGeneration = currentGeneration;
  }

  /** The entry kept for `tokenHash`, if any, and the generation found: what the store holds from then on belongs to it, until it moves. */
  async get(tokenHash: string): Promise<{ readonly value: T | undefined; readonly generation: number }> {
    const generation = await this.#currentGeneration();
    if (generation !== this.#generation) {
      this.#entries.clear();
      this.#generation = generation;
    }
    return { value: this.#entries.get(tokenHash), generation };
  }

  /**
   * Keeps `value`, read from the store (or derived from what was) after a `get` that found `generation`. Reading
   * awaits, so the generation may have moved meanwhile: then the value may already be stale and is not kept.
   */
  async set(tokenHash: string, value: T, generation: number): Promise<void> {
    const current = await this.#currentGeneration();
    if (generation !== this.#generation || current !== generation) return;
    if (this.#entries.size >= MAX_ENTRIES && !this.#entries.has(tokenHash)) this.#entries.clear();
    this.#entries.set(tokenHash, value);
  }

  delete(tokenHash: string): void {
    this.#entries.delete(tokenHash);
  }
}
