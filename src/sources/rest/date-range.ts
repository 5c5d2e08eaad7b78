import { valueAt } from './json-path.ts';

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

/**
 * The records of a list whose time at `path` falls within `range` (bounds included), for APIs that
 * take no date filter of their own; with no bounds, the list as it is.
 */
export function recordsWithin(list: unknown, path: string, range: { readonly from?: Date; readonly to?: Date }): unknown {
  if ((range.from === undefined && range.to === undefined) || !Array.isArray(list)) return list;
  return list.filter((record) => {
    const time = timeAt(record, path) ?? 0;
    return (range.from === undefined || time >= range.from.getTime()) && (range.to === undefined || time <= range.to.getTime());
  });
}
