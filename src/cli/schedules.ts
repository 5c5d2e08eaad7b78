import type { AppContext } from '../context.ts';
import { CliError } from './cli-error.ts';
import { textTable } from './text-table.ts';
import { withAlertingProject, withProject } from './with-project.ts';

/** One line per schedule: name, cron and zone, whether enabled, next run, last run and its outcome. */
export async function listSchedules(project: string, env: NodeJS.ProcessEnv): Promise<string> {
  return withProject(project, env, async (ctx) => {
    const schedules = await ctx.schedules.list();
    if (schedules.length === 0) return 'No schedules yet: add them under "schedules:" in .quarry/project.yml.';
    const rows = schedules.map((schedule) => [
      schedule.name, `${schedule.cron} (${schedule.timezone})`, schedule.enabled ? 'enabled' : 'disabled', schedule.nextRun ?? '—',
      schedule.lastRun === null ? 'never' : `${schedule.lastRun.startedAt} ${schedule.lastRun.outcome}`,
    ]);
    return textTable(['NAME', 'CRON', 'STATE', 'NEXT RUN', 'LAST RUN'], rows);
  });
}

/** Runs a schedule now in this process (its syncs, retries and models), printing its log lines; resolves with the last line. */
export async function runScheduleHere(ctx: AppContext, name: string, print: (line: string) => void): Promise<string> {
  const unsubscribe = ctx.events.subscribe((event) => {
    if (event.type === 'sync_completed') print(`Synced ${event.source}: ${String(event.rows)} rows`);
    if (event.type === 'sync_failed') print(`The sync of ${event.source} failed: ${event.error}`);
    if (event.type === 'transform_run_completed') print(`Ran model ${event.model}`);
    if (event.type === 'transform_run_failed') print(`Model ${event.model} failed: ${event.error}`);
  });
  // Ctrl-C stops the run as a stopping service does: its jobs are recorded interrupted, the data untouched.
  const interrupt = (): void => { void ctx.schedules.close().then(() => ctx.jobs.close(0)); };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  process.once('SIGHUP', interrupt);
  try {
    const run = await ctx.schedules.runAndWait(name, 'cli');
    if (run.outcome !== 'success') throw new CliError(`the schedule ${name} ${run.outcome === 'interrupted' ? 'was interrupted' : 'failed'}: ${run.detail ?? run.outcome}`);
    return `Schedule ${name} finished`;
  } finally {
    unsubscribe();
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
    process.off('SIGHUP', interrupt);
  }
}

export async function runSchedule(project: string, name: string, env: NodeJS.ProcessEnv): Promise<string> {
  return withAlertingProject(project, env, (ctx) => runScheduleHere(ctx, name, (line) => { console.log(line); }));
}
