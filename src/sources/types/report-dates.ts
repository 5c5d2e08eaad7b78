const DAY_MS = 86_400_000;

/** A UTC calendar date `days` before `now`, as YYYY-MM-DD. */
export function daysBefore(now: Date, days: number): string {
  return new Date(now.getTime() - days * DAY_MS).toISOString().slice(0, 10);
}

/** A report date as Google's reporting APIs write it (`2026-01-31`, `30daysAgo`, `yesterday`, `today`) as YYYY-MM-DD. */
export function resolveReportDate(text: string, now: Date): string {
  if (text === 'today') return daysBefore(now, 0);
  if (text === 'yesterday') return daysBefore(now, 1);
  const relative = /^(\d+)daysAgo$/.exec(text);
  return relative === null ? text : daysBefore(now, Number(relative[1]));
}
