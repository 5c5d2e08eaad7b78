import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/support/slow-first-sequencer.ts';

/** A timing comparison that another file's load would skew. */
const ALONE = ['test/server/login-timing.test.ts'];

export default defineConfig({
  test: {
    // Limits for a hang, not for speed: files share two cores with others, so a test may take several times
    // what it takes alone.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // How long expect.poll waits for a page or a job to catch up: a second is too short on a busy machine.
    expect: { poll: { timeout: 10_000 } },
    reporters: ['default', './test/support/summary-reporter.ts'],
    sequence: { sequencer: SlowFirstSequencer },
    globalSetup: ['./test/support/run-folder.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['src/**/*.test.ts'], pool: 'threads', sequence: { groupOrder: 0 } },
      },
      {
        // Three files at a time on two cores: the many files that wait for a job, a page, Superset or a browser leave
        // a core idle with two; a third file's work fills those waits.
        extends: true,
        test: {
          name: 'integration', include: ['test/**/*.test.ts'], exclude: ALONE, pool: 'forks', maxWorkers: 3,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: { name: 'alone', include: ALONE, pool: 'forks', maxWorkers: 1, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
