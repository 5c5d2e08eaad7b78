/** A clock the tests move by hand, so expiry is tested without waiting. */
export class TestClock {
  #now: number;
  constructor(start = Date.now()) {
    this.#now = start;
  }
  readonly now = (): Date => new Date(this.#now);
  advance(milliseconds: number): void {
    this.#now += milliseconds;
  }
}
