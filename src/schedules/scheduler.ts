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
  missed(schedule: string, reason: string): void | Promise<void>;
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
  #starting: Promise<void> | undefined;
  /** The runs going and the slots being dealt with, to the last of their records (a run's entry is free before): close() waits for them. */
  readonly #pending = new Set<Promise<void>>();
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
  async start(incidents?: ScheduleIncidents): Promise<void> {
    if (this.#started || this.#closed) return;
    this.#started = true;
    this.#incidents = incidents;
    this.#starting = this.#startEntries();
    await this.#starting;
  }

  async #startEntries(): Promise<void> {
    const { store, now } = this.#options;
    const interrupted = await store.schedules.interruptRunning(now().toISOString());
    if (interrupted > 0) await this.#logLine('WARNING', `${String(interrupted)} scheduled run(s) were interrupted when the service stopped`);
    for (const entry of this.#entries.values()) {
      if (!entry.schedule.enabled) continue;
      const at = now();
      const latest = entry.slots.latest(at);
      const name = entry.schedule.name;
      // The last slot is read, decided on and recorded in one transaction.
      const catchUp = await store.transaction(async () => {
        const lastSlot = await store.schedules.lastSlot(name);
        if (lastSlot === undefined) {
          // First seen now: nothing was missed before it existed.
          await store.schedules.claimSlot(name, (latest ?? at).toISOString());
          return false;
        }
        if (latest === undefined || latest.getTime() <= Date.parse(lastSlot)) return false;
        return store.schedules.claimSlot(name, latest.toISOString());
      });
      // Closed meanwhile: no run may start any more.
      if (this.#closed) return;
      if (catchUp) await this.#fire(entry, 'catch_up');
      this.#arm(entry);
    }
  }

  /** Every schedule with its next and last run. */
  async list(): Promise<ScheduleStatus[]> {
    return Promise.all([...this.#entries.values()].map((entry) => this.#status(entry)));
  }

  /** Starts a run now (`quarry schedule run`, Run now); rejects with ScheduleNotFoundError, or ScheduleInProgressError while one goes. */
  async runNow(name: string, requestedBy: string): Promise<ScheduleRunRecord> {
    const entry = this.#entry(name);
    if (entry.running !== undefined || this.#closed) throw new ScheduleInProgressError(name);
    return this.#fire(entry, 'manual', requestedBy);
  }

  /** Runs the schedule now and resolves with its record once it has finished (for the CLI). */
  async runAndWait(name: string, requestedBy: string): Promise<ScheduleRunRecord> {
    const record = await this.runNow(name, requestedBy);
    await this.#entry(name).running;
    return await this.#options.store.schedules.latestRun(name) ?? record;
  }

  /** Resolves when no scheduled run is going and what the runs and slots write is written. */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  /**
   * Stops the timers and the runs: a run waiting for its jobs or a retry is recorded interrupted at once (the
   * jobs themselves end with the job runner's shutdown). Idempotent.
   */
  async close(): Promise<void> {
    this.#closed = true;
    for (const entry of this.#entries.values()) this.#timer.clearTimeout(entry.handle);
    // A start under way catches up no more schedules once closed; the runs it has begun are stopped below.
    await this.#starting?.catch(() => undefined);
    this.#controller.abort(new Error('The service is stopping'));
    await this.idle();
  }

  #entry(name: string): Entry {
    const entry = this.#entries.get(name);
    if (entry === undefined) throw new ScheduleNotFoundError(name);
    return entry;
  }

  async #status(entry: Entry): Promise<ScheduleStatus> {
    const { schedule } = entry;
    const last = await this.#options.store.schedules.latestRun(schedule.name);
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
    entry.handle = this.#timer.setTimeout(() => {
      this.#track(this.#wake(entry).catch((error: unknown) => {
        this.#options.log.error({ err: error, schedule: entry.schedule.name }, 'a scheduled slot could not be started');
      }));
    }, waitMs);
  }

  /** Counts `work` (which never rejects) as pending until it settles. */
  #track(work: Promise<void>): void {
    this.#pending.add(work);
    void work.finally(() => { this.#pending.delete(work); });
  }

  /** A timer's end: close() clears the timers, so this runs only while the scheduler is open. */
  async #wake(entry: Entry): Promise<void> {
    try {
      const now = this.#options.now();
      if (entry.nextAt !== undefined && now.getTime() >= entry.nextAt.getTime()) {
        // After a long pause (a suspended host) several slots may have passed: one run covers them all.
        const slot = entry.slots.latest(now) ?? entry.nextAt;
        entry.nextAt = undefined;
        // Another process of the deployment may have woken for the same slot: only the one that claims it runs it.
        const claimed = await this.#options.store.schedules.claimSlot(entry.schedule.name, slot.toISOString());
        if (claimed && !this.#closed) await this.#fire(entry, 'cron', undefined, now);
      }
    } finally {
      this.#arm(entry);
    }
  }

  /**
   * Starts a run, or records the slot skipped while one goes. The run is the entry's from this turn on (before its
   * record is written), so that no other slot or "run now" starts a second one meanwhile. `at` is when it started:
   * a timer's run started when the timer woke, whatever the bookkeeping before it took.
   */
  #fire(entry: Entry, trigger: ScheduleTrigger, requestedBy?: string, at: Date = this.#options.now()): Promise<ScheduleRunRecord> {
    const { store, events } = this.#options;
    const name = entry.schedule.name;
    if (entry.running !== undefined) return this.#skip(entry, trigger);
    const recorded = store.schedules.startRun(name, trigger, at.toISOString());
    const running: Promise<void> = recorded
      .then(async (record) => {
        events.publish({ type: 'schedule_started', schedule: name }, new Date(record.startedAt));
        const why = trigger === 'catch_up' ? ' (it missed its slot while the service was stopped)' : trigger === 'manual' ? ` (run now by ${requestedBy ?? 'someone'})` : '';
        await this.#logLine('INFO', `Schedule ${name} started${why}`);
        await this.#run(entry, record);
      }, () => {
        // The run's record could not be written: whoever started it is told so (the promise returned below).
      })
      // Thrown from here (the platform database refusing the record, say), it would be an unhandled rejection that stops the service.
      .catch((error: unknown) => { this.#options.log.error({ err: error, schedule: name }, 'the end of a scheduled run could not be recorded'); })
      .finally(() => { if (entry.running === running) entry.running = undefined; });
    entry.running = running;
    this.#track(running);
    return recorded;
  }

  async #skip(entry: Entry, trigger: ScheduleTrigger): Promise<ScheduleRunRecord> {
    const { store, events, now } = this.#options;
    const name = entry.schedule.name;
    const reason = 'its previous run is still going';
    const record = await store.transaction(async () => {
      const started = await store.schedules.startRun(name, trigger, now().toISOString());
      await store.schedules.finishRun(started.id, 'skipped', reason, now().toISOString());
      return started;
    });
    await this.#logLine('WARNING', `Schedule ${name} skipped this slot: ${reason}`);
    this.#options.log.warn({ schedule: name }, 'scheduled run skipped: the previous run is still going');
    events.publish({ type: 'schedule_completed', schedule: name, outcome: 'skipped' });
    await this.#incident(name, `skipped: ${reason}`);
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
        log: (level, message) => this.#logLine(level, message),
      }, signal);
    } catch (error) {
      if (!signal.aborted) log.error({ err: error, schedule: name }, 'scheduled run failed unexpectedly');
      result = signal.aborted ? { outcome: 'interrupted', detail: 'The service stopped before the run finished' } : { outcome: 'failed', detail: firstLineOf(error) };
    }
    await store.schedules.finishRun(record.id, result.outcome, result.detail, now().toISOString());
    // Over before anyone hears of it: a slot or a "run now" that follows the completion event must not be skipped.
    entry.running = undefined;
    if (result.outcome === 'interrupted') {
      await this.#logLine('WARNING', `Schedule ${name} was interrupted: the service is stopping`);
      return;
    }
    if (result.outcome === 'success') await this.#logLine('SUCCESS', `Schedule ${name} finished`);
    else await this.#logLine('ERROR', `Schedule ${name} failed: ${result.detail ?? 'unknown error'}`);
    events.publish({ type: 'schedule_completed', schedule: name, outcome: result.outcome });
    if (result.outcome === 'failed') await this.#incident(name, result.detail ?? 'the run failed');
  }

  async #incident(name: string, reason: string): Promise<void> {
    try {
      await this.#incidents?.missed(name, reason);
    } catch (error) {
      this.#options.log.error({ err: error, schedule: name }, 'reporting a missed schedule failed');
    }
  }

  async #logLine(level: LogLevel, message: string): Promise<void> {
    await this.#options.store.logs.append({ timestamp: this.#options.now().toISOString(), level, source: null, message });
  }
}
