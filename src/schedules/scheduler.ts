import type { ScheduleConfig } from '../config/index.ts';
import { firstLineOf } from '../errors.ts';
import type { EventBus } from '../events/index.ts';
import type { Logger } from '../logger.ts';
import type { LogLevel, ScheduleOutcome, ScheduleRunRecord, ScheduleTrigger } from '../store/index.ts';
import { CronSlots } from './cron-slots.ts';
import { ScheduleInProgressError, ScheduleNotFoundError } from './errors.ts';
import { runSchedule, type ScheduleRunDependencies } from './schedule-run.ts';
import { systemTimer, type Timer } from './timer.ts';

/**
 * Where a schedule that could not do its work is reported (the alerts module, wired where the platform is
 * assembled): skipped because its previous run was still going, or failed after its retries.
 */
export interface ScheduleIncidents {
  missed(schedule: string, reason: string): void;
}

export interface SchedulerOptions extends Omit<ScheduleRunDependencies, 'log' | 'retryDelayMs' | 'timer'> {
  readonly schedules: readonly ScheduleConfig[];
  /** Where a run's start and end are announced. */
  readonly events: EventBus;
  readonly log: Logger;
  readonly now: () => Date;
  /** The system's timers unless a test moves a clock by hand. */
  readonly timer?: Timer;
  /** Wait before try `attempt + 1` of a sync that failed on a transient error (default: 1 min, doubling, at most 30 min). */
  readonly retryDelayMs?: (attempt: number) => number;
}

/** A schedule as the API, the page and the CLI show it. */
export interface ScheduleStatus {
  readonly name: string;
  /** `sync`: syncs sources (and maybe models); `backup`: backs the project up into a bucket. */
  readonly kind: ScheduleConfig['kind'];
  readonly cron: string;
  readonly timezone: string;
  readonly enabled: boolean;
  readonly running: boolean;
  /** The next cron slot; null for a disabled schedule. */
  readonly nextRun: string | null;
  readonly lastRun: { readonly startedAt: string; readonly finishedAt: string | null; readonly outcome: ScheduleOutcome } | null;
}

const MINUTE_MS = 60_000;
/** Timers re-check the clock at least this often: setTimeout cannot wait past 24.8 days, and the clock may jump. */
const MAX_TIMER_MS = 60 * MINUTE_MS;

function defaultRetryDelayMs(attempt: number): number {
  return Math.min(30 * MINUTE_MS, MINUTE_MS * 2 ** (attempt - 1));
}

interface Entry {
  readonly schedule: ScheduleConfig;
  readonly slots: CronSlots;
  nextAt: Date | undefined;
  handle: unknown;
  running: Promise<void> | undefined;
}

/**
 * Runs the project's schedules: each enabled one at its cron slots, once at start when it missed slots while the
 * service was down (not once per missed slot), never stacked (a slot that comes while the previous run still goes is
 * skipped and logged). A run is ordinary sync jobs, requested by `schedule:<name>`, then the models downstream.
 */
export class Scheduler {
  readonly #options: SchedulerOptions;
  readonly #timer: Timer;
  readonly #entries = new Map<string, Entry>();
  readonly #controller = new AbortController();
  #started = false;
  #incidents: ScheduleIncidents | undefined;
  #closed = false;

  constructor(options: SchedulerOptions) {
    this.#options = options;
    this.#timer = options.timer ?? systemTimer;
    for (const schedule of options.schedules) {
      this.#entries.set(schedule.name, { schedule, slots: new CronSlots(schedule), nextAt: undefined, handle: undefined, running: undefined });
    }
  }

  /**
   * For the serving process: records runs a stopped service left as interrupted, catches up missed slots, arms
   * the timers; a run that could not be done is reported to `incidents` (the alerts).
   */
  start(incidents?: ScheduleIncidents): void {
    const { store, now } = this.#options;
    if (this.#started || this.#closed) return;
    this.#started = true;
    this.#incidents = incidents;
    const interrupted = store.schedules.interruptRunning(now().toISOString());
    if (interrupted > 0) this.#logLine('WARNING', `${String(interrupted)} scheduled run(s) were interrupted when the service stopped`);
    for (const entry of this.#entries.values()) {
      if (!entry.schedule.enabled) continue;
      const at = now();
      const lastSlot = store.schedules.lastSlot(entry.schedule.name);
      const latest = entry.slots.latest(at);
      if (lastSlot === undefined) {
        // First seen now: nothing was missed before it existed.
        store.schedules.saveLastSlot(entry.schedule.name, (latest ?? at).toISOString());
      } else if (latest !== undefined && latest.getTime() > Date.parse(lastSlot)) {
        store.schedules.saveLastSlot(entry.schedule.name, latest.toISOString());
        this.#fire(entry, 'catch_up');
      }
      this.#arm(entry);
    }
  }

  /** Every schedule with its next and last run. */
  list(): ScheduleStatus[] {
    return [...this.#entries.values()].map((entry) => this.#status(entry));
  }

  /** Starts a run now (`quarry schedule run`, Run now); throws ScheduleNotFoundError, or ScheduleInProgressError while one goes. */
  runNow(name: string, requestedBy: string): ScheduleRunRecord {
    const entry = this.#entry(name);
    if (entry.running !== undefined || this.#closed) throw new ScheduleInProgressError(name);
    return this.#fire(entry, 'manual', requestedBy);
  }

  /** Runs the schedule now and resolves with its record once it has finished (for the CLI). */
  async runAndWait(name: string, requestedBy: string): Promise<ScheduleRunRecord> {
    const record = this.runNow(name, requestedBy);
    await this.#entry(name).running;
    return this.#options.store.schedules.latestRun(name) ?? record;
  }

  /** Resolves when no scheduled run is going. */
  async idle(): Promise<void> {
    for (;;) {
      const running = [...this.#entries.values()].map((entry) => entry.running).filter((run) => run !== undefined);
      if (running.length === 0) return;
      await Promise.all(running);
    }
  }

  /**
   * Stops the timers and the runs: a run waiting for its jobs or a retry is recorded interrupted at once (the
   * jobs themselves end with the job runner's shutdown). Idempotent.
   */
  async close(): Promise<void> {
    this.#closed = true;
    for (const entry of this.#entries.values()) this.#timer.clearTimeout(entry.handle);
    this.#controller.abort(new Error('The service is stopping'));
    await this.idle();
  }

  #entry(name: string): Entry {
    const entry = this.#entries.get(name);
    if (entry === undefined) throw new ScheduleNotFoundError(name);
    return entry;
  }

  #status(entry: Entry): ScheduleStatus {
    const { schedule } = entry;
    const last = this.#options.store.schedules.latestRun(schedule.name);
    const next = schedule.enabled ? entry.nextAt ?? entry.slots.next(this.#options.now()) : undefined;
    return {
      name: schedule.name, kind: schedule.kind, cron: schedule.cron, timezone: schedule.timezone, enabled: schedule.enabled, running: entry.running !== undefined,
      nextRun: next?.toISOString() ?? null,
      lastRun: last === undefined ? null : { startedAt: last.startedAt, finishedAt: last.finishedAt, outcome: last.outcome },
    };
  }

  /** Waits for the next slot; wakes at least hourly to read the clock again. */
  #arm(entry: Entry): void {
    if (this.#closed) return;
    const now = this.#options.now();
    entry.nextAt ??= entry.slots.next(now);
    if (entry.nextAt === undefined) return;
    const waitMs = Math.min(MAX_TIMER_MS, Math.max(0, entry.nextAt.getTime() - now.getTime()));
    entry.handle = this.#timer.setTimeout(() => { this.#wake(entry); }, waitMs);
  }

  #wake(entry: Entry): void {
    if (this.#closed) return;
    const now = this.#options.now();
    if (entry.nextAt !== undefined && now.getTime() >= entry.nextAt.getTime()) {
      // After a long pause (a suspended host) several slots may have passed: one run covers them all.
      const slot = entry.slots.latest(now) ?? entry.nextAt;
      this.#options.store.schedules.saveLastSlot(entry.schedule.name, slot.toISOString());
      entry.nextAt = undefined;
      this.#fire(entry, 'cron');
    }
    this.#arm(entry);
  }

  #fire(entry: Entry, trigger: ScheduleTrigger, requestedBy?: string): ScheduleRunRecord {
    const { store, events, now } = this.#options;
    const name = entry.schedule.name;
    if (entry.running !== undefined) return this.#skip(entry, trigger);
    const record = store.schedules.startRun(name, trigger, now().toISOString());
    events.publish({ type: 'schedule_started', schedule: name });
    const why = trigger === 'catch_up' ? ' (it missed its slot while the service was stopped)' : trigger === 'manual' ? ` (run now by ${requestedBy ?? 'someone'})` : '';
    this.#logLine('INFO', `Schedule ${name} started${why}`);
    entry.running = this.#run(entry, record)
      // Thrown from here (the platform database refusing the record, say), it would be an unhandled rejection that stops the service.
      .catch((error: unknown) => { this.#options.log.error({ err: error, schedule: name }, 'the end of a scheduled run could not be recorded'); })
      .finally(() => { entry.running = undefined; });
    return record;
  }

  #skip(entry: Entry, trigger: ScheduleTrigger): ScheduleRunRecord {
    const { store, events, now } = this.#options;
    const name = entry.schedule.name;
    const reason = 'its previous run is still going';
    const record = store.transaction(() => {
      const started = store.schedules.startRun(name, trigger, now().toISOString());
      store.schedules.finishRun(started.id, 'skipped', reason, now().toISOString());
      return started;
    });
    this.#logLine('WARNING', `Schedule ${name} skipped this slot: ${reason}`);
    this.#options.log.warn({ schedule: name }, 'scheduled run skipped: the previous run is still going');
    events.publish({ type: 'schedule_completed', schedule: name, outcome: 'skipped' });
    this.#incident(name, `skipped: ${reason}`);
    return record;
  }

  async #run(entry: Entry, record: ScheduleRunRecord): Promise<void> {
    const { store, events, now, log } = this.#options;
    const name = entry.schedule.name;
    const signal = this.#controller.signal;
    let result: { outcome: 'success' | 'failed' | 'interrupted'; detail: string | null };
    try {
      result = await runSchedule(entry.schedule, {
        ...this.#options, timer: this.#timer, retryDelayMs: this.#options.retryDelayMs ?? defaultRetryDelayMs,
        log: (level, message) => { this.#logLine(level, message); },
      }, signal);
    } catch (error) {
      if (!signal.aborted) log.error({ err: error, schedule: name }, 'scheduled run failed unexpectedly');
      result = signal.aborted ? { outcome: 'interrupted', detail: 'The service stopped before the run finished' } : { outcome: 'failed', detail: firstLineOf(error) };
    }
    store.schedules.finishRun(record.id, result.outcome, result.detail, now().toISOString());
    // Over before anyone hears of it: a slot or a "run now" that follows the completion event must not be skipped.
    entry.running = undefined;
    if (result.outcome === 'interrupted') {
      this.#logLine('WARNING', `Schedule ${name} was interrupted: the service is stopping`);
      return;
    }
    if (result.outcome === 'success') this.#logLine('SUCCESS', `Schedule ${name} finished`);
    else this.#logLine('ERROR', `Schedule ${name} failed: ${result.detail ?? 'unknown error'}`);
    events.publish({ type: 'schedule_completed', schedule: name, outcome: result.outcome });
    if (result.outcome === 'failed') this.#incident(name, result.detail ?? 'the run failed');
  }

  #incident(name: string, reason: string): void {
    try {
      this.#incidents?.missed(name, reason);
    } catch (error) {
      this.#options.log.error({ err: error, schedule: name }, 'reporting a missed schedule failed');
    }
  }

  #logLine(level: LogLevel, message: string): void {
    this.#options.store.logs.append({ timestamp: this.#options.now().toISOString(), level, source: null, message });
  }
}
