import type { ScheduleConfig } from '../config/index.ts';
import { syncIntervalHours } from '../schedules/index.ts';
import type { SourceConfig } from '../sources/config/index.ts';

const HOUR_MS = 3_600_000;

/** How long after its last successful sync a source is stale: a warning first, then a critical issue. */
export interface FreshnessLimits {
  readonly warnAfterHours?: number;
  readonly errorAfterHours?: number;
}

/** A source past one of its limits: how old its data is and which limit it passed. */
export interface Staleness {
  readonly source: string;
  readonly level: 'warn' | 'error';
  readonly hoursOld: number;
  readonly limitHours: number;
  /** One line for health reports and alerts: "orders was last synced 26 hours ago (critical after 24 hours)". */
  readonly message: string;
}

/**
 * The source's own `freshness:` from sources.yml, else what its schedule implies (stale after two of the
 * schedule's intervals, critical after four), else none.
 */
export function freshnessLimitsOf(source: SourceConfig, schedules: readonly ScheduleConfig[], now: Date): FreshnessLimits | undefined {
  const own = source.freshness;
  if (own !== undefined) return { warnAfterHours: own.warn_after_hours, errorAfterHours: own.error_after_hours };
  const intervalHours = syncIntervalHours(source, schedules, now);
  return intervalHours === undefined ? undefined : { warnAfterHours: 2 * intervalHours, errorAfterHours: 4 * intervalHours };
}

/** Whether a source synced successfully at `lastSuccessAt` is stale now; a source never synced has no freshness yet. */
export function stalenessOf(source: string, limits: FreshnessLimits, lastSuccessAt: string | null, now: Date): Staleness | undefined {
  if (lastSuccessAt === null) return undefined;
  const hoursOld = (now.getTime() - Date.parse(lastSuccessAt)) / HOUR_MS;
  const { warnAfterHours, errorAfterHours } = limits;
  const passed = errorAfterHours !== undefined && hoursOld >= errorAfterHours
    ? { level: 'error' as const, limitHours: errorAfterHours }
    : warnAfterHours !== undefined && hoursOld >= warnAfterHours ? { level: 'warn' as const, limitHours: warnAfterHours } : undefined;
  if (passed === undefined) return undefined;
  const shownHours = Math.floor(hoursOld);
  const severity = passed.level === 'error' ? 'critical' : 'stale';
  return {
    source, ...passed, hoursOld,
    message: `${source} was last synced ${String(shownHours)} hour${shownHours === 1 ? '' : 's'} ago (${severity} after ${String(passed.limitHours)} hours)`,
  };
}
