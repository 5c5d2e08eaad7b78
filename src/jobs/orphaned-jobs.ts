import { hostname } from 'node:os';
import { isRunning } from '../os/index.ts';
import type { JobRecord, Store } from '../store/index.ts';

/**
 * Jobs recorded queued or running whose process has ended without finishing them: Ctrl-C or a closed terminal
 * during `quarry build`, kill -9, a crash. Any process of the same host may meet them (another command, a service
 * starting, doctor). A job sent to a deployment's queue is the queue's to give to another worker once its lease
 * lapses, and a job owned on another host is not judged here, since its pid means nothing on this one.
 */
export async function orphanedJobs(store: Store): Promise<JobRecord[]> {
  const host = hostname();
  const queued = (job: JobRecord): boolean => store.shared !== undefined && job.parameters !== null;
  return (await store.jobs.active()).filter((job) => !queued(job) && (job.owner === null || ((job.owner.host ?? host) === host && !isRunning(job.owner))));
}

/** Marks each orphaned job interrupted, with its models' runs, and says so in its log; returns them. */
export async function interruptOrphanedJobs(store: Store, now: string): Promise<JobRecord[]> {
  // Every job's start asks: the write transaction is taken only when there is something to mark.
  const orphaned = await orphanedJobs(store);
  if (orphaned.length === 0) return [];
  return store.transaction(async () => {
    const interrupted: JobRecord[] = [];
    for (const job of orphaned) {
      const stopped = job.owner === null ? 'the service stopped' : `the process running it (pid ${String(job.owner.pid)}) stopped`;
      // Only a job still queued or running is marked: another process may have marked or finished it since.
      const marked = await store.jobs.interrupt(job.id, `Interrupted: ${stopped} before the job finished`, now);
      if (marked === undefined) continue;
      if (job.kind === 'run') await store.modelRuns.failRunning(job.id, `Interrupted: ${stopped} before the model finished`, now);
      await store.logs.append({
        timestamp: now, level: 'WARNING', source: job.kind === 'sync' || job.kind === 'restore' ? job.target : null, jobId: job.id,
        message: `The ${job.kind} job ${String(job.id)} was interrupted when ${stopped}; the previous data is intact`,
      });
      interrupted.push(marked);
    }
    return interrupted;
  });
}

/** A job as a person looks for it in a terminal: `run of orders+ (job 12, pid 4242)`. */
export function describeJob(job: JobRecord): string {
  return `${job.kind} of ${job.target} (job ${String(job.id)}${job.owner === null ? '' : `, pid ${String(job.owner.pid)}`})`;
}
