import type { DatabaseSync } from 'node:sqlite';

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
  readonly #database: DatabaseSync;
  constructor(database: DatabaseSync) {
    this.#database = database;
  }

  lastSlot(schedule: string): string | undefined {
    const row = this.#database.prepare('SELECT last_slot_at FROM schedule_slots WHERE schedule = ?').get(schedule) as { last_slot_at: string } | undefined;
    return row?.last_slot_at;
  }

  saveLastSlot(schedule: string, slotAt: string): void {
    this.#database.prepare(`
      INSERT INTO schedule_slots (schedule, last_slot_at) VALUES (?, ?)
      ON CONFLICT (schedule) DO UPDATE SET last_slot_at = excluded.last_slot_at`).run(schedule, slotAt);
  }

  /** Records a run as it starts (`running`), or a skipped one already finished. */
  startRun(schedule: string, trigger: ScheduleTrigger, now: string): ScheduleRunRecord {
    const row = this.#database.prepare(`
      INSERT INTO schedule_runs (schedule, trigger, started_at, outcome) VALUES (?, ?, ?, 'running') RETURNING *`)
      .get(schedule, trigger, now) as unknown as ScheduleRunRow;
    return toRecord(row);
  }

  finishRun(id: number, outcome: Exclude<ScheduleOutcome, 'running'>, detail: string | null, now: string): void {
    this.#database.prepare('UPDATE schedule_runs SET outcome = ?, detail = ?, finished_at = ? WHERE id = ?').run(outcome, detail, now, id);
  }

  /** Runs a stopped service left going become interrupted; returns how many. */
  interruptRunning(now: string): number {
    return Number(this.#database.prepare(`
      UPDATE schedule_runs SET outcome = 'interrupted', finished_at = ?, detail = 'The service stopped before the run finished'
      WHERE outcome = 'running'`).run(now).changes);
  }

  latestRun(schedule: string): ScheduleRunRecord | undefined {
    const row = this.#database.prepare('SELECT * FROM schedule_runs WHERE schedule = ? ORDER BY id DESC LIMIT 1').get(schedule) as ScheduleRunRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  /** Newest first. */
  runs(schedule: string, limit: number): ScheduleRunRecord[] {
    return (this.#database.prepare('SELECT * FROM schedule_runs WHERE schedule = ? ORDER BY id DESC LIMIT ?')
      .all(schedule, limit) as unknown as ScheduleRunRow[]).map(toRecord);
  }
}
