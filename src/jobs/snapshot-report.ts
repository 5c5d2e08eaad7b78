import type { JobRecord, Store } from '../store/index.ts';
import { listSnapshots, type LakeSnapshot, type SnapshotJob, type WarehouseReaders } from '../warehouse/index.ts';

/**
 * The lake's latest `limit` snapshots, newest first, each with its job: the one it is labelled with, or
 * the model run whose recorded span holds it (dbt commits its own snapshots, unlabelled).
 */
export async function snapshotReport(readers: WarehouseReaders, store: Store, limit: number): Promise<LakeSnapshot[]> {
  const snapshots = await readers.withReader((connection) => listSnapshots(connection, readers.lake, limit));
  const oldest = snapshots.at(-1)?.id;
  if (oldest === undefined) return snapshots;
  const runs = await store.jobs.spanningFrom(oldest);
  return snapshots.map((snapshot) => (snapshot.job !== null ? snapshot : { ...snapshot, job: spanHolding(runs, snapshot.id) }));
}

function spanHolding(jobs: readonly JobRecord[], snapshot: number): SnapshotJob | null {
  const job = jobs.find((candidate) => candidate.snapshotBefore !== null && candidate.snapshotAfter !== null
    && snapshot > candidate.snapshotBefore && snapshot <= candidate.snapshotAfter);
  return job === undefined ? null : { id: job.id, kind: job.kind, target: job.target };
}
