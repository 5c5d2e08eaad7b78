import type { DateWindow } from '../date-window.ts';
import { valueAt } from './json-path.ts';

/** The days a sync reads: a backfill's window, else the `start_date`/`end_date` of the source's section. */
export function dateRangeOf(
  section: { readonly start_date?: string | undefined; readonly end_date?: string | undefined }, window: DateWindow | undefined,
): { readonly startDate: string | undefined; readonly endDate: string | undefined } {
  return window === undefined ? { startDate: section.start_date, endDate: section.end_date } : { startDate: window.since, endDate: window.until };
}

/** The last millisecond of a `YYYY-MM-DD` day in UTC, as an `end_date` bound includes its whole day. */
export function endOfDay(date: string): Date {
  return new Date(`${date}T23:59:59.999Z`);
}

/** Unix seconds of a `YYYY-MM-DD` day's start in UTC. */
export function unixSecondsOf(date: string): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / 1000);
}

/** The first millisecond of a `YYYY-MM-DD` day in UTC. */
export function startOfDay(date: string): Date {
  return new Date(`${date}T00:00:00.000Z`);
}

/** The time a record's field holds: ISO text, or a number of unix seconds. */
function timeAt(record: unknown, path: string): number | undefined {
  const value = valueAt(record, path);
  if (typeof value === 'number') return value * 1000;
  if (typeof value !== 'string') return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : time;
}

type TimeRange = { readonly from?: Date | undefined; readonly to?: Date | undefined };

/** Whether a record's time at `path` falls within `range`, bounds included; a record without one counts as 1970. */
export function isWithin(record: unknown, path: string, range: TimeRange): boolean {
  const time = timeAt(record, path) ?? 0;
  return (range.from === undefined || time >= range.from.getTime()) && (range.to === undefined || time <= range.to.getTime());
}

/**
 * The records of a list whose time at `path` falls within `range` (bounds included), for APIs that
 * take no date filter of their own; with no bounds, the list as it is.
 */
export function recordsWithin(list: unknown, path: string, range: TimeRange): unknown {
  if ((range.from === undefined && range.to === undefined) || !Array.isArray(list)) return list;
  return list.filter((record) => isWithin(record, path, range));
}
