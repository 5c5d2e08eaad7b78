/**
 * A clock the tests move by hand, so expiry is tested without waiting; its timers (the scheduler's) fire as
 * `advance` moves past them, in order, each seeing the clock at its own due time or later.
 */
export class TestClock {
  #now: number;
  readonly #timers = new Map<number, { dueAt: number; callback: () => void }>();
  #nextHandle = 1;

  constructor(start = Date.now()) {
    this.#now = start;
  }

  readonly now = (): Date => new Date(this.#now);

  advance(milliseconds: number): void {
    const target = this.#now + milliseconds;
    for (;;) {
      const due = this.#due(target);
      if (due === undefined) break;
      this.#fire(due);
    }
    this.#now = target;
  }

  /**
   * Moves the clock as `advance` does, but lets each fired timer's promises settle (its store reads and writes, say)
   * before looking for the next due timer, so that a timer armed after an await still fires within the same move.
   */
  async advanceSettled(milliseconds: number): Promise<void> {
    const target = this.#now + milliseconds;
    for (;;) {
      await new Promise((resolve) => { setImmediate(resolve); });
      const due = this.#due(target);
      if (due === undefined) break;
      this.#fire(due);
    }
    this.#now = target;
  }

  /** Moves the clock to the earliest pending timer and fires it; returns how far it moved. */
  advanceToNextTimer(): number {
    const dueAt = Math.min(...[...this.#timers.values()].map((timer) => timer.dueAt));
    if (!Number.isFinite(dueAt)) throw new Error('no timer is pending');
    const moved = Math.max(0, dueAt - this.#now);
    this.advance(moved);
    return moved;
  }

  /** When each pending timer is due, earliest first. */
  pendingTimers(): Date[] {
    return [...this.#timers.values()].map((timer) => timer.dueAt).sort((a, b) => a - b).map((dueAt) => new Date(dueAt));
  }

  /** The earliest timer due at or before `target`. */
  #due(target: number): [number, { dueAt: number; callback: () => void }] | undefined {
    return [...this.#timers.entries()].filter(([, timer]) => timer.dueAt <= target).sort(([, a], [, b]) => a.dueAt - b.dueAt)[0];
  }

  #fire([handle, timer]: [number, { dueAt: number; callback: () => void }]): void {
    this.#timers.delete(handle);
    this.#now = Math.max(this.#now, timer.dueAt);
    timer.callback();
  }

  readonly setTimeout = (callback: () => void, delayMs: number): unknown => {
    const handle = this.#nextHandle++;
    this.#timers.set(handle, { dueAt: this.#now + delayMs, callback });
    return handle;
  };

  readonly clearTimeout = (handle: unknown): void => {
    this.#timers.delete(handle as number);
  };
}
