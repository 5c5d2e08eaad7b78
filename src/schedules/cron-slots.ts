import { Cron } from 'croner';
import type { ScheduleConfig } from '../config/index.ts';

/** A schedule's cron slots in its time zone, read by croner (daylight-saving changes included). */
export class CronSlots {
  readonly #cron: Cron;

  constructor(schedule: Pick<ScheduleConfig, 'cron' | 'timezone'>) {
    this.#cron = new Cron(schedule.cron, { timezone: schedule.timezone, mode: '5-part' });
  }

  /** The first slot strictly after `after`; undefined for a pattern that never fires again. */
  next(after: Date): Date | undefined {
    return this.#cron.nextRun(after) ?? undefined;
  }

  /** The latest slot at or before `at`. */
  latest(at: Date): Date | undefined {
    return this.#cron.previousRuns(1, new Date(at.getTime() + 1))[0];
  }
}
