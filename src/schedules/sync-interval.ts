import type { ScheduleConfig } from '../config/index.ts';
import type { SourceConfig } from '../sources/config/index.ts';
import { CronSlots } from './cron-slots.ts';
import { sourcesOf } from './schedule-run.ts';

/**
 * How often the enabled schedules that sync `source` run, in hours: the gap between the next two slots of
 * the most frequent one after `at`; undefined when no enabled schedule syncs it.
 */
export function syncIntervalHours(source: SourceConfig, schedules: readonly ScheduleConfig[], at: Date): number | undefined {
  const gaps = schedules
    .filter((schedule) => schedule.enabled && schedule.kind === 'sync' && sourcesOf(schedule, [source]).synced.includes(source.name))
    .flatMap((schedule) => {
      const slots = new CronSlots(schedule);
      const first = slots.next(at);
      const second = first === undefined ? undefined : slots.next(first);
      return first === undefined || second === undefined ? [] : [(second.getTime() - first.getTime()) / 3_600_000];
    });
  return gaps.length === 0 ? undefined : Math.min(...gaps);
}
