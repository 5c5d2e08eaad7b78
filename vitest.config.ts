import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/support/slow-first-sequencer.ts';

/** Files that each run Superset's gunicorn workers, a browser, or a fuzzer: kept apart from the many small files. */
const HEAVY = [
  'test/dashboard/superset.test.ts',
  'test/dashboard/shared-lake.test.ts',
  'test/dashboard/lake-in-bucket.test.ts',
  'test/faults/kill-with-dashboard.test.ts',
  'test/security/dashboard-roles.test.ts',
  'test/security/reader-writes.test.ts',
  'test/web/every-page.browser.test.ts',
  'test/api/fuzz.test.ts',
];

/**
 * Files run a second time with the platform store in PostgreSQL (a schema of their own in the local server):
 * sign-in, keys, roles, the WebSocket, syncs through the queue (backfills among them), schedules, as a deployment's
 * processes share them.
 */
const ON_SHARED_STORE = [
  'test/server/account.test.ts', 'test/server/authentication.test.ts', 'test/server/api-keys.test.ts', 'test/server/roles.test.ts',
  'test/server/login-protection.test.ts', 'test/server/credential-cache.test.ts', 'test/server/websocket.test.ts',
  'test/server/backfill.test.ts', 'test/server/schedules.test.ts',
];

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
        // One file a core: more would not finish sooner (the suite is bound by the cores) and would stretch
        // the waits of tests that watch a job or a page.
        extends: true,
        test: {
          name: 'integration', include: ['test/**/*.test.ts'], exclude: [...HEAVY, ...ALONE], pool: 'forks', maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        // Two at a time, beside the integration files from the start (a group shares one worker count): each waits
        // much of its time for Superset or a browser, which their work fills; run after them, three at a time, they
        // left the cores a quarter idle.
        test: { name: 'heavy', include: HEAVY, pool: 'forks', maxWorkers: 2, sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        test: {
          name: 'shared-store', include: ON_SHARED_STORE, pool: 'forks', maxWorkers: 2, sequence: { groupOrder: 1 },
          env: { QUARRY_TEST_PLATFORM_STORE: 'postgres' },
        },
      },
      {
        extends: true,
        test: { name: 'alone', include: ALONE, pool: 'forks', maxWorkers: 1, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
