import { existsSync, readFileSync } from 'node:fs';
import { withProject } from './with-project.ts';

export async function describeProjectStatus(project: string, env: NodeJS.ProcessEnv): Promise<string> {
  return withProject(project, env, (ctx) => {
    const pidFile = ctx.paths.serverPidFile;
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : null;
    const running = pid !== null && isAlive(pid);
    return [
      `Project: ${ctx.config.name} (${ctx.paths.root})`,
      `Server: ${running ? `running (pid ${String(pid)}) at http://${ctx.config.web.host}:${String(ctx.config.web.port)}` : 'not running'}`,
      `Sources: ${ctx.sources.length} (${ctx.sources.filter((source) => source.enabled).length} enabled)`,
      `Users: ${ctx.store.users.count()}`,
    ].join('\n');
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
