import { readdirSync } from 'node:fs';
import { getPriority } from 'node:os';
import { describe, expect, it } from 'vitest';
import { closeJobInstance, createJobInstance, setJobThreads } from '../../src/warehouse/job-instance.ts';

// A file of its own process (the integration project's forks): no other test's threads appear meanwhile.
const threadIds = (): number[] => readdirSync('/proc/self/task').map(Number);

describe.runIf(process.platform === 'linux')('a job\'s DuckDB instance', () => {
  it('runs the threads DuckDB starts for it niced, at creation and when given more later', async () => {
    // Node's own thread pool, which the bindings start on first use, is not DuckDB's.
    const warmUp = await createJobInstance({ threads: 1 });
    await closeJobInstance(warmUp, await warmUp.connect());

    const before = new Set(threadIds());
    const instance = await createJobInstance({ threads: 2 });
    const connection = await instance.connect();
    try {
      await setJobThreads(connection, 1);
      await setJobThreads(connection, 4);
      const started = threadIds().filter((thread) => !before.has(thread));
      expect(started.length).toBeGreaterThanOrEqual(3);
      expect(started.map((thread) => getPriority(thread))).toEqual(started.map(() => 10));
      expect(getPriority(process.pid)).toBe(0);
    } finally {
      await closeJobInstance(instance, connection);
    }
  });
});
