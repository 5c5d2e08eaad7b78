const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 30_000;
const EXITS_BEFORE_GIVING_UP = 5;
const WINDOW_MS = 60_000;

/**
 * When a long-lived child that exited unexpectedly starts again: after 1 s, 2 s, 4 s… up to 30 s;
 * five exits within a minute are a restart loop, and it is not started again. Every managed child
 * (Superset, the docs server, the watcher) uses one.
 */
export class RestartPolicy {
  readonly #recentExits: number[] = [];
  readonly #now: () => number;
  #timer: NodeJS.Timeout | null = null;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /**
   * Records an exit and schedules `restart` after the backoff, returning the delay; returns undefined,
   * scheduling nothing, when the child is in a restart loop.
   */
  restartLater(restart: () => void): number | undefined {
    const now = this.#now();
    this.#recentExits.push(now);
    while ((this.#recentExits[0] ?? now) < now - WINDOW_MS) this.#recentExits.shift();
    if (this.#recentExits.length >= EXITS_BEFORE_GIVING_UP) return undefined;
    const delayMs = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (this.#recentExits.length - 1));
    this.cancel();
    this.#timer = setTimeout(() => {
      this.#timer = null;
      restart();
    }, delayMs);
    return delayMs;
  }

  /** Drops a scheduled restart (the child is being stopped). */
  cancel(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
