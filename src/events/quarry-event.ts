/**
 * Every platform event, exactly as the WebSocket sends it: syncs, model runs and file changes, schedules, alert
 * deliveries (where `event` names the message: `sync_failed`, `sync_failed_resolved`, `alert_test`...), data
 * tests and restores.
 */
export type QuarryEvent = { timestamp: string } & (
  | { type: 'sync_started'; source: string }
  | { type: 'sync_completed'; source: string; rows: number }
  // How far a running sync's extraction has come (records read, in how many pages).
  | { type: 'sync_progress'; source: string; rows: number; pages: number }
  | { type: 'sync_failed'; source: string; error: string }
  | { type: 'transform_run_started'; model: string }
  | { type: 'transform_run_completed'; model: string }
  | { type: 'transform_run_failed'; model: string; error: string }
  | { type: 'csv_uploaded'; source: string; file: string }
  | { type: 'csv_deleted'; source: string; file: string }
  // A schedule's run starting, and how it ended (`skipped` while its previous run still went).
  | { type: 'schedule_started'; schedule: string }
  | { type: 'schedule_completed'; schedule: string; outcome: 'success' | 'failed' | 'skipped' }
  | { type: 'alert_sent'; alert: string; event: string }
  | { type: 'alert_failed'; alert: string; event: string; error: string }
  // A data test of a model run that failed (severity error, or dbt could not run it) or warned; `failures` counts its failing rows.
  | { type: 'transform_test_failed'; model: string; test: string; failures: number }
  | { type: 'transform_test_warned'; model: string; test: string; failures: number }
  // None of a model's tests a run (a build, or a test-only run) ran failed (a warning passes); `tests` counts them.
  | { type: 'transform_tests_passed'; model: string; tests: number }
  // A source's raw tables were put back as they were at `snapshot`, just before the sync `before_sync`.
  | { type: 'warehouse_restored'; source: string; before_sync: number; snapshot: number }
);

export type QuarryEventType = QuarryEvent['type'];
export const EVENT_TYPES: readonly QuarryEventType[] = [
  'sync_started', 'sync_progress', 'sync_completed', 'sync_failed', 'transform_run_started', 'transform_run_completed', 'transform_run_failed',
  'csv_uploaded', 'csv_deleted', 'schedule_started', 'schedule_completed', 'alert_sent', 'alert_failed',
  'transform_test_failed', 'transform_test_warned', 'transform_tests_passed', 'warehouse_restored',
];
