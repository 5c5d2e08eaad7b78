/** More distinct credentials than this in use at once and the cache starts over rather than grow without bound. */
const MAX_ENTRIES = 10_000;

/**
 * Sessions or API keys already resolved from the platform database, by the hash of their token. Every read first
 * compares the store's credential generation (bumped by triggers on any change to users, sessions or keys, from
 * any process) and forgets everything when it moved, so a revocation, logout, role change, deactivation or
 * password change counts from the very next request. Expiry is time, not a change: callers check it on each hit.
 */
export class CredentialCache<T> {
  readonly #currentGeneration: () => number;
  readonly #entries = new Map<string, T>();
  #generation = Number.NaN;

  constructor(currentGeneration: () => number) {
    this.#currentGeneration = currentGeneration;
  }

  get(tokenHash: string): T | undefined {
    const generation = this.#currentGeneration();
    if (generation !== this.#generation) {
      this.#entries.clear();
      this.#generation = generation;
    }
    return this.#entries.get(tokenHash);
  }

  /** Call only after a `get` of the same hash in the same synchronous turn, so the entry belongs to that generation. */
  set(tokenHash: string, value: T): void {
    if (this.#entries.size >= MAX_ENTRIES && !this.#entries.has(tokenHash)) this.#entries.clear();
    this.#entries.set(tokenHash, value);
  }

  delete(tokenHash: string): void {
    this.#entries.delete(tokenHash);
  }
}
