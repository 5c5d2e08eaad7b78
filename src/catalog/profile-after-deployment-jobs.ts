import type { EventBus, QuarryEventType } from '../events/index.ts';
import type { TableProfiler } from './table-profiler.ts';

/** The events of jobs that change the lake's tables (a failed model run may have built some of its models). */
const TABLES_CHANGED: ReadonlySet<QuarryEventType> = new Set(['sync_completed', 'transform_run_completed', 'transform_run_failed', 'warehouse_restored']);
/**
 * How long the deployment's jobs must pause before their tables are profiled: jobs end in bursts (syncs that fetched
 * for the same time), and profiling reads the tables on the cores their loads and commits need.
 */
const PROFILE_AFTER_PAUSE_MS = 1_000;

/**
 * Profiles the tables the deployment's jobs changed, once their events pause: its workers leave profiling to the
 * process serving the catalog (whose own jobs are profiled already, so a refresh after them finds nothing). Returns
 * what stops it.
 */
export function profileAfterDeploymentJobs(events: EventBus, profiler: TableProfiler): () => void {
  let soon: NodeJS.Timeout | undefined;
  const unsubscribe = events.subscribe((event) => {
    if (!TABLES_CHANGED.has(event.type)) return;
    clearTimeout(soon);
    soon = setTimeout(() => { void profiler.refresh(); }, PROFILE_AFTER_PAUSE_MS);
    soon.unref();
  });
  return () => {
    unsubscribe();
    clearTimeout(soon);
  };
}
