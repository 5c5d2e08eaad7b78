import type { PlatformDatabase } from './platform-database.ts';

export const SCHEDULE_TRIGGERS = ['cron', 'catch_up', 'manual'] as const;
export type ScheduleTrigger = (typeof SCHEDULE_TRIGGERS)[number];
export const SCHEDULE_OUTCOMES = ['running', 'success', 'failed', 'skipped', 'interrupted'] as const;
export type ScheduleOutcome = (typeof SCHEDULE_OUTCOMES)[number];

export interface ScheduleRunRecord {
  readonly id: number;
  readonly schedule: string;
  readonly trigger: ScheduleTrigger;
  readonly startedAt: string;
  readonly finishedAt: string | null;
  readonly outcome: ScheduleOutcome;
  /** Why it was skipped or failed; null otherwise. */
  readonly detail: string | null;
}

interface ScheduleRunRow {
  id: number; schedule: string; trigger: ScheduleTrigger; started_at: string; finished_at: string | null; outcome: ScheduleOutcome; detail: string | null;
}

function toRecord(row: ScheduleRunRow): ScheduleRunRecord {
  return Object.freeze({
    id: row.id, schedule: row.schedule, trigger: row.trigger, startedAt: row.started_at, finishedAt: row.finished_at, outcome: row.outcome, detail: row.detail,
  });
}

/** Each schedule's last dealt-with cron slot (to find the runs missed while the service was down) and its runs. */
export class SchedulesRepository {
  readonly #database: PlatformDatabase;
  constructor(database: PlatformDatabase) {
    this.#database = database;
  }

  async lastSlot(schedule: string): Promise<string | undefined> {
    const row = await this.#database.get<{ last_slot_at: string }>('SELECT last_slot_at FROM schedule_slots WHERE schedule = ?', schedule);
    return row?.last_slot_at;
  }

  /**
   * Records `slotAt` as the schedule's latest slot dealt with, unless that slot (or a later one) is already: answers
   * whether this caller claimed it. Every process of a deployment that wakes for a slot asks, and only one is told yes.
   */
  async claimSlot(schedule: string, slotAt: string): Promise<boolean> {
    return await this.#database.run(`
      INSERT INTO schedule_slots (schedule, last_slot_at) VALUES (?, ?)
      ON CONFLICT (schedule) DO UPDATE SET last_slot_at = excluded.last_slot_at WHERE schedule_slots.last_slot_at < excluded.last_slot_at`,
    schedule, slotAt) === 1;
  }

  /** Records a run as it starts (`running`), or a skipped one already finished. */
  async startRun(schedule: string, trigger: ScheduleTrigger, now: string): Promise<ScheduleRunRecord> {
    const row = await this.#database.get<ScheduleRunRow>(`
      INSERT INTO schedule_runs (schedule, trigger, started_at, outcome) VALUES (?, ?, ?, 'running') RETURNING *`,
      schedule, trigger, now) as ScheduleRunRow;
    return toRecord(row);
  }

  async finishRun(id: number, outcome: Exclude<ScheduleOutcome, 'running'>, detail: string | null, now: string): Promise<void> {
    await this.#database.run('UPDATE schedule_runs SET outcome = ?, detail = ?, finished_at = ? WHERE id = ?', outcome, detail, now, id);
  }

  /** Runs a stopped service left going become interrupted; returns how many. */
  async interruptRunning(now: string): Promise<number> {
    return await this.#database.run(`
      UPDATE schedule_runs SET outcome = 'interrupted', finished_at = ?, detail = 'The service stopped before the run finished'
      WHERE outcome = 'running'`, now);
  }

  async latestRun(schedule: string): Promise<ScheduleRunRecord | undefined> {
    const row = await this.#database.get<ScheduleRunRow>('SELECT * FROM schedule_runs WHERE schedule = ? ORDER BY id DESC LIMIT 1', schedule);
    return row ? toRecord(row) : undefined;
  }

  /** Newest first. */
  async runs(schedule: string, limit: number): Promise<ScheduleRunRecord[]> {
    return (await this.#database.all<ScheduleRunRow>('SELECT * FROM schedule_runs WHERE schedule = ? ORDER BY id DESC LIMIT ?',
      schedule, limit)).map(toRecord);
  }
}
