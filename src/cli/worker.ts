import { once } from 'node:events';
import { closeContext, createContext } from '../context.ts';
import { createLogger, type LogFormat } from '../logger.ts';
import { SecretRedactor } from '../sources/config/index.ts';
import { checkCatalogReachable, lakeBucketProblem } from '../warehouse/index.ts';
import { CliError } from './cli-error.ts';
import { defaultLogFormat } from './log-format.ts';

export interface WorkerOptions {
  project: string;
  /** The name its jobs are recorded with; host:pid when left out. */
  name?: string;
  /** Jobs at once; platform.job_concurrency when left out. */
  concurrency?: number;
  logFormat?: LogFormat;
}

/**
 * `quarry worker`: runs jobs from the deployment's queue, and nothing else (no web app, no schedules, no
 * dashboard), until SIGINT, SIGTERM or SIGHUP; then the jobs it runs get the grace period to finish.
 */
export async function runWorker(options: WorkerOptions, env: NodeJS.ProcessEnv, onTaking: (name: string) => void): Promise<void> {
  const redactor = new SecretRedactor();
  const log = createLogger({ level: env.QUARRY_LOG_LEVEL ?? 'info', format: options.logFormat ?? defaultLogFormat(process.stdout), redactor });
  // Its jobs only: the process serving the web app profiles the tables they change and writes its own staging models.
  const ctx = await createContext({ projectDir: options.project, env, log, redactor, workerName: options.name, profileAfterJobs: false, stagingAfterSyncs: false });
  try {
    if (ctx.store.shared === undefined) {
      throw new CliError('A worker shares its jobs through a PostgreSQL platform store: set platform.store in project.yml (quarry store migrate --to postgres://...) for every process of the deployment');
    }
    // As `quarry start` does: a lake catalog it cannot log in to stops it here, not each job it would take; and it
    // never makes the lake, which the web process does.
    await checkCatalogReachable(ctx.lake, { lakeMustExist: true });
    // It has no health page to show a bucket its keys cannot reach: it stops, where `quarry start` shows it there.
    const bucketProblem = await lakeBucketProblem(ctx.lake);
    if (bucketProblem !== undefined) throw new CliError(`The warehouse cannot be used: ${bucketProblem}`);
    await ctx.jobs.recoverInterrupted();
    await ctx.jobs.takeQueuedJobs(options.concurrency ?? ctx.config.platform.job_concurrency);
    onTaking(ctx.jobs.lifecycle.owner.worker);
    const signal = await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM'), once(process, 'SIGHUP')]);
    ctx.log.info({ signal: String(signal[0] ?? '') }, 'worker shutting down');
  } finally {
    await closeContext(ctx);
  }
}
