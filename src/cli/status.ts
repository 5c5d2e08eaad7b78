import { describeJob, interruptOrphanedJobs } from '../jobs/index.ts';
import { runningServer } from '../os/index.ts';
import { withProject } from './with-project.ts';

export async function describeProjectStatus(project: string, env: NodeJS.ProcessEnv): Promise<string> {
  return withProject(project, env, async (ctx) => {
    const server = runningServer(ctx.paths);
    // A job a stopped process left running (Ctrl-C during a build) is marked interrupted here too, and said so.
    const interrupted = await interruptOrphanedJobs(ctx.store, ctx.now().toISOString());
    const active = await ctx.store.jobs.active();
    const users = await ctx.store.users.count();
    return [
      `Project: ${ctx.config.name} (${ctx.paths.root})`,
      `Server: ${server !== undefined ? `running (pid ${String(server.pid)})${server.localUrl === '' ? '' : ` at ${server.localUrl}`}` : 'not running'}`,
      `Sources: ${ctx.sources.length} (${ctx.sources.filter((source) => source.enabled).length} enabled)`,
      `Users: ${String(users)}`,
      `Jobs: ${active.length === 0 ? 'none queued or running' : active.map((job) => `${describeJob(job)} ${job.status}`).join('; ')}`,
      ...interrupted.length === 0 ? [] : [`Marked interrupted, since the process running each had stopped: ${interrupted.map(describeJob).join('; ')}`],
    ].join('\n');
  });
}
