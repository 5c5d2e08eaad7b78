import { firstLineOf } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { systemTimer, type Timer } from './timer.ts';

const DAY_MS = 24 * 60 * 60_000;
/** Timers re-check the clock at least this often: the clock may jump. */
const MAX_TIMER_MS = 60 * 60_000;

export interface DailyMaintenanceOptions {
  /** Queues one maintenance job (the job lifecycle runs it in the lake writer's turn); throws or rejects when one is active. */
  readonly start: () => void | Promise<void>;
  /** When the last maintenance began, or undefined for never. */
  readonly lastStartedAt: () => Promise<Date | undefined>;
  readonly now: () => Date;
  readonly log: Logger;
  readonly timer?: Timer;
}

/**
 * Queues the lake's maintenance once a day, counted from the last one (so a service restarted often still
 * runs it, and one down for days runs it once at start); a lake never maintained waits a day from the start,
 * so a new project's first minutes are its own.
 */
export class DailyMaintenance {
  readonly #options: DailyMaintenanceOptions;
  readonly #timer: Timer;
  #handle: unknown;
  #startedAt = new Date(0);
  #closed = false;

  constructor(options: DailyMaintenanceOptions) {
    this.#options = options;
    this.#timer = options.timer ?? systemTimer;
  }

  async start(): Promise<void> {
    this.#startedAt = this.#options.now();
    await this.#arm();
  }

  close(): void {
    this.#closed = true;
    this.#timer.clearTimeout(this.#handle);
  }

  async #arm(): Promise<void> {
    const since = await this.#since();
    // Closed (before or while the last maintenance was looked up): no timer may outlive close().
    if (this.#closed) return;
    const dueInMs = since.getTime() + DAY_MS - this.#options.now().getTime();
    this.#handle = this.#timer.setTimeout(() => {
      void this.#tick().catch((error: unknown) => { this.#options.log.error({ err: error }, 'the daily warehouse maintenance could not be scheduled'); });
    }, Math.max(0, Math.min(dueInMs, MAX_TIMER_MS)));
  }

  async #tick(): Promise<void> {
    const since = await this.#since();
    if (this.#closed) return;
    if (this.#options.now().getTime() - since.getTime() >= DAY_MS) {
      try {
        await this.#options.start();
      } catch (error) {
        this.#options.log.warn({ err: firstLineOf(error) }, 'the daily warehouse maintenance was not started');
      }
    }
    await this.#arm();
  }

  async #since(): Promise<Date> {
    return await this.#options.lastStartedAt() ?? this.#startedAt;
  }
}
