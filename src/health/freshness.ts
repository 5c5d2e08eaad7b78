import type { SourceConfig } from '../config/index.ts';

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

/** The source's own `freshness:` from sources.yml, else the default its schedule implies, else none. */
export function freshnessLimitsOf(source: SourceConfig): FreshnessLimits | undefined {
  const own = source.freshness;
  if (own !== undefined) return { warnAfterHours: own.warn_after_hours, errorAfterHours: own.error_after_hours };
  return scheduledFreshness(source);
}

/**
 * The freshness a source's schedule implies when sources.yml sets none.
 * TODO(issue 21): wire to the `schedules:` of project.yml once they exist (items 1 and 3): a source a schedule
 * syncs is stale after two of that schedule's intervals (warn) and four (error).
 */
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- the source's schedule decides, once schedules exist (the TODO above)
export function scheduledFreshness(source: SourceConfig): FreshnessLimits | undefined {
  return undefined;
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
