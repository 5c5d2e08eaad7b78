import type { ScheduleConfig } from '../config/index.ts';
import type { EventBus } from '../events/index.ts';
import { freshnessLimitsOf, stalenessOf } from '../health/index.ts';
import type { SourceReports } from '../jobs/index.ts';
import type { Logger } from '../logger.ts';
import type { SourceConfig } from '../sources/config/index.ts';
import type { AlertCenter } from './alert-center.ts';

/** How often every source's freshness is checked; a sync that completes checks its source at once. */
const CHECK_INTERVAL_MS = 5 * 60_000;

/** The sources, their sync history, the bus and where stale sources are reported. */
export interface FreshnessMonitorOptions {
  readonly sources: readonly SourceConfig[];
  /** The project's schedules: a source without `freshness:` is stale after two of its schedule's intervals. */
  readonly schedules: readonly ScheduleConfig[];
  readonly sourceReports: SourceReports;
  readonly events: EventBus;
  readonly alerts: Pick<AlertCenter, 'incident' | 'recovered'>;
  readonly log: Logger;
  readonly now: () => Date;
  readonly intervalMs?: number;
}

/**
 * Watches the freshness of every enabled source with limits (sources.yml `freshness:` or its schedule's default):
 * a source past its first limit opens a `source_stale` incident, a source fresh again closes it.
 */
export class FreshnessMonitor {
  readonly #options: FreshnessMonitorOptions;
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;
  /** Checks run one at a time, in the order asked, so that an older reading never undoes a newer one. */
  #checking: Promise<void> = Promise.resolve();

  constructor(options: FreshnessMonitorOptions) {
    this.#options = options;
  }

  /** Checks now (resolving once that check is done), then periodically and after each completed sync. */
  async start(): Promise<void> {
    if (this.#timer !== undefined) return;
    this.#unsubscribe = this.#options.events.subscribe((event) => {
      if (event.type === 'sync_completed') void this.check(event.source);
    });
    this.#timer = setInterval(() => { void this.check(); }, this.#options.intervalMs ?? CHECK_INTERVAL_MS);
    this.#timer.unref();
    await this.check();
  }

  /** Opens or closes the `source_stale` incident of each watched source (or only `sourceName`) as of now; never rejects. */
  check(sourceName?: string): Promise<void> {
    this.#checking = this.#checking.then(() => this.#check(sourceName));
    return this.#checking;
  }

  async #check(sourceName: string | undefined): Promise<void> {
    const { sources, schedules, sourceReports, alerts, log, now } = this.#options;
    try {
      const lastSuccess = new Map((await sourceReports.summaries()).map((summary) => [summary.name, summary.freshness.lastUpdate]));
      for (const source of sources) {
        if (!source.enabled || (sourceName !== undefined && source.name !== sourceName)) continue;
        const limits = freshnessLimitsOf(source, schedules, now());
        const lastSuccessAt = lastSuccess.get(source.name) ?? null;
        if (limits === undefined || lastSuccessAt === null) continue;
        const staleness = stalenessOf(source.name, limits, lastSuccessAt, now());
        if (staleness === undefined) await alerts.recovered({ kind: 'source_stale', subject: source.name });
        else await alerts.incident({ kind: 'source_stale', subject: source.name, error: staleness.message });
      }
    } catch (error) {
      log.error({ err: error }, 'the freshness check failed; it runs again at the next interval');
    }
  }

  /** Stops checking, once a check under way is done. Idempotent. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    await this.#checking;
  }
}
