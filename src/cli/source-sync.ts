import type { AppContext } from '../context.ts';
import { startAllSyncs, type BackfillRequest, type JobEnding } from '../jobs/index.ts';
import type { LogFormat } from '../logger.ts';
import { CliError } from './cli-error.ts';
import { ModelsAfterSync } from './models-after-sync.ts';
import { ProgressLine } from './progress-line.ts';
import { textTable } from './text-table.ts';
import { withAlertingProject, withProject } from './with-project.ts';

/**
 * Runs one sync in this process, printing the source's log lines as they are written and, on a terminal, a
 * line redrawn in place with the rows and pages read so far, then waits for the models it sets off; resolves
 * with the last line, and a line on those models when any ran.
 */
export async function runSyncHere(
  ctx: AppContext, name: string, options: { fullRefresh: boolean; backfill?: BackfillRequest | undefined },
): Promise<string> {
  const { job, ended } = await ctx.jobs.startSync(name, { ...options, requestedBy: 'cli' });
  const progress = new ProgressLine();
  progress.set(`Syncing ${name}`);
  const models = new ModelsAfterSync(ctx, progress);
  const stopProgress = ctx.events.subscribe((event) => {
    if (event.type === 'sync_progress' && event.source === name) {
      progress.set(`Syncing ${name} · ${event.rows.toLocaleString()} rows · ${event.pages.toLocaleString()} page(s)`);
    }
  });
  const printed = new Set<string>();
  // One look at the log at a time: a slow read never lets two print the same line. A look that failed was reported by its caller.
  let printing: Promise<void> = Promise.resolve();
  const printNew = (): Promise<void> => {
    printing = printing.catch(() => undefined).then(async () => {
      for (const entry of (await ctx.sourceReports.logs(name, 50)).reverse()) {
        const key = `${entry.timestamp} ${entry.message}`;
        if (printed.has(key) || entry.timestamp < job.createdAt) continue;
        printed.add(key);
        progress.print(`${entry.level.padEnd(7)} ${entry.message}`);
      }
    });
    return printing;
  };
  const ticker = setInterval(() => {
    printNew().catch((error: unknown) => { ctx.log.warn({ err: error }, 'the sync\'s log lines could not be read'); });
  }, 250);
  // Ctrl-C stops the sync as a stopping service does: the job is recorded interrupted, the data untouched.
  const interrupt = (): void => { void ctx.jobs.close(0); };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  process.once('SIGHUP', interrupt);
  try {
    const outcome = await syncOutcome(ctx, name, await ended);
    await ctx.jobs.idle();
    await printNew();
    if (!outcome.ok) throw new CliError(`the sync of ${name} failed: ${outcome.message}`);
    const modelsLine = await models.settled();
    return modelsLine === undefined ? outcome.message : `${outcome.message}\n${modelsLine}`;
  } finally {
    clearInterval(ticker);
    models.stop();
    stopProgress();
    progress.stop();
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
    process.off('SIGHUP', interrupt);
  }
}

/** How a sync of `name` ended: its line for the terminal, and whether it succeeded. */
async function syncOutcome(ctx: AppContext, name: string, ending: JobEnding): Promise<{ ok: boolean; message: string }> {
  if (ending.status !== 'success') return { ok: false, message: ending.error ?? ending.status };
  return { ok: true, message: `Synced ${name}: ${String(ending.rows ?? 0)} rows${await skippedFiles(ctx, name)}` };
}

/** The warning a sync that skipped unreadable files ends with; the sync's history entry holds the count. */
async function skippedFiles(ctx: AppContext, name: string): Promise<string> {
  const filesFailed = (await ctx.sourceReports.history(name, 1))[0]?.filesFailed ?? 0;
  return filesFailed === 0 ? '' : `; WARNING: ${String(filesFailed)} file(s) could not be read and were skipped (see quarry logs)`;
}

export async function syncSource(
  project: string, name: string, options: { fullRefresh?: boolean; since?: string; until?: string; logFormat?: LogFormat }, env: NodeJS.ProcessEnv,
): Promise<string> {
  if (options.until !== undefined && options.since === undefined) throw new CliError('--until needs --since');
  const backfill = options.since === undefined ? undefined : { since: options.since, until: options.until };
  return withAlertingProject(project, env, (ctx) => runSyncHere(ctx, name, { fullRefresh: options.fullRefresh === true, backfill }), options.logFormat);
}

/**
 * Syncs every enabled source in this process, one line per source as each ends (disabled and already running
 * ones say so) and on a terminal a line redrawn in place with how many are done; fails, after every line,
 * when a sync could not start or failed.
 */
export async function syncAllSources(project: string, env: NodeJS.ProcessEnv, logFormat?: LogFormat): Promise<string> {
  return withAlertingProject(project, env, async (ctx) => {
    // Each sync's end is taken as it is queued: one queued first may have ended before the last is.
    const ends = new Map<string, Promise<{ ok: boolean; message: string }>>();
    const entries = await startAllSyncs({
      startSync: async (name, options) => {
        const started = await ctx.jobs.startSync(name, options);
        const end = started.ended.then((ending) => syncOutcome(ctx, name, ending));
        // Awaited in the order of sources.yml below; one that fails meanwhile must not stop the process.
        void end.catch(() => undefined);
        ends.set(name, end);
        return started;
      },
    }, ctx.sources, 'cli');
    const progress = new ProgressLine();
    const models = new ModelsAfterSync(ctx, progress);
    let done = 0;
    const tell = (reading = ''): void => { progress.set(`Syncing ${String(entries.length)} source(s) · ${String(done)} done${reading}`); };
    tell();
    const stopProgress = ctx.events.subscribe((event) => {
      if (event.type === 'sync_progress') tell(` · ${event.source}: ${event.rows.toLocaleString()} rows`);
    });
    let failed = 0;
    try {
      for (const entry of entries) {
        if (entry.status === 'started') {
          const end = await ends.get(entry.source);
          if (end?.ok === false) failed += 1;
          progress.print(end?.ok === false ? `${entry.source}: failed: ${end.message}` : `${entry.source}: ${end?.message ?? 'synced'}`);
        } else {
          if (entry.status === 'failed') failed += 1;
          progress.print(`${entry.source}: ${entry.status.replace('_', ' ')}: ${entry.detail ?? ''}`);
        }
        done += 1;
        tell();
      }
      await ctx.jobs.idle();
      const modelsLine = await models.settled();
      if (modelsLine !== undefined) progress.print(modelsLine);
    } finally {
      models.stop();
      stopProgress();
      progress.stop();
    }
    if (failed > 0) throw new CliError(`${String(failed)} of ${String(entries.length)} source(s) failed`);
    return `Synced ${String(entries.filter((entry) => entry.status === 'started').length)} of ${String(entries.length)} source(s)`;
  }, logFormat);
}

/** One line per source: name, type, status, rows and when it last synced. */
export async function listSources(project: string, env: NodeJS.ProcessEnv): Promise<string> {
  return withProject(project, env, async (ctx) => {
    if (ctx.sources.length === 0) return 'No sources yet: add one with `quarry source add`.';
    const rows = (await ctx.sourceReports.summaries()).map((summary) =>
      [summary.name, summary.type, summary.enabled ? summary.status : 'disabled', String(summary.rowCount), summary.lastSync ?? 'never']);
    return textTable(['NAME', 'TYPE', 'STATUS', 'ROWS', 'LAST SYNC'], rows);
  });
}
