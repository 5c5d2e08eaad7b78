import { valueAt } from './json-path.ts';

/** The last millisecond of a `YYYY-MM-DD` day in UTC, as an `end_date` bound includes its whole day. */
export function endOfDay(date: string): Date {
  return new Date(`${date}T23:59:59.999Z`);
}

/** Unix seconds of a `YYYY-MM-DD` day's start in UTC. */
export function unixSecondsOf(date: string): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / 1000);
}

/** The time a record's field holds: ISO text, or a number of unix seconds. */
export function timeAt(record: unknown, path: string): number | undefined {
  const value = valueAt(record, path);
  if (typeof value === 'number') return value * 1000;
  if (typeof value !== 'string') return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : time;
}

/**
 * The records of a list whose time at `path` is not after `end`, for APIs that take no upper bound;
 * with no `end`, the list as it is.
 */
export function recordsUpTo(list: unknown, path: string, end: Date | undefined): unknown {
  if (end === undefined || !Array.isArray(list)) return list;
  return list.filter((record) => (timeAt(record, path) ?? 0) <= end.getTime());
}
