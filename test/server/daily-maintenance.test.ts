import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { DailyMaintenance } from '../../src/schedules/index.ts';
import { TestClock } from '../support/test-clock.ts';

const HOUR = 60 * 60_000;

describe('the daily warehouse maintenance', () => {
  it('waits a day from the start when the lake was never maintained, then runs once a day counted from the last', async () => {
    const clock = new TestClock(Date.UTC(2026, 5, 1, 12));
    const started: Date[] = [];
    const maintenance = new DailyMaintenance({
      start: () => { started.push(clock.now()); },
      lastStartedAt: async () => started.at(-1),
      now: clock.now, timer: clock, log: createLogger({ level: 'silent' }),
    });
    await maintenance.start();
    await clock.advanceSettled(23 * HOUR);
    expect(started).toEqual([]);
    await clock.advanceSettled(HOUR);
    expect(started.map((at) => at.toISOString())).toEqual(['2026-06-02T12:00:00.000Z']);
    await clock.advanceSettled(24 * HOUR);
    expect(started).toHaveLength(2);
    maintenance.close();
    await clock.advanceSettled(48 * HOUR);
    expect(started).toHaveLength(2);
  });

  it('runs at start when the last maintenance is more than a day old', async () => {
    const clock = new TestClock(Date.UTC(2026, 5, 10));
    let runs = 0;
    const maintenance = new DailyMaintenance({
      start: () => { runs++; }, lastStartedAt: async () => (runs === 0 ? new Date(Date.UTC(2026, 5, 1)) : clock.now()),
      now: clock.now, timer: clock, log: createLogger({ level: 'silent' }),
    });
    await maintenance.start();
    await clock.advanceSettled(0);
    expect(runs).toBe(1);
    maintenance.close();
  });
});
