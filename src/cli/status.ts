import { runningServerPid } from './running-server.ts';
import { withProject } from './with-project.ts';

export async function describeProjectStatus(project: string, env: NodeJS.ProcessEnv): Promise<string> {
  return withProject(project, env, (ctx) => {
    const pid = runningServerPid(ctx.paths);
    return [
      `Project: ${ctx.config.name} (${ctx.paths.root})`,
      `Server: ${pid !== undefined ? `running (pid ${String(pid)}) at http://${ctx.config.web.host}:${String(ctx.config.web.port)}` : 'not running'}`,
      `Sources: ${ctx.sources.length} (${ctx.sources.filter((source) => source.enabled).length} enabled)`,
      `Users: ${ctx.store.users.count()}`,
    ].join('\n');
  });
}
