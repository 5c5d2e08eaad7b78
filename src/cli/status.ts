import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { closeContext, createContext } from '../context.ts';
import { createLogger } from '../logger.ts';

export function describeProjectStatus(project: string, env: NodeJS.ProcessEnv): string {
  const ctx = createContext({ projectDir: project, env, log: createLogger({ level: 'warn', destination: process.stderr }) });
  try {
    const pidFile = path.join(ctx.paths.runDir, 'server.pid');
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : null;
    const running = pid !== null && isAlive(pid);
    return [
      `Project: ${ctx.config.name} (${ctx.paths.root})`,
      `Server: ${running ? `running (pid ${String(pid)}) at http://${ctx.config.web.host}:${String(ctx.config.web.port)}` : 'not running'}`,
      `Sources: ${ctx.sources.length} (${ctx.sources.filter((source) => source.enabled).length} enabled)`,
      `Users: ${ctx.store.users.count()}`,
    ].join('\n');
  } finally {
    closeContext(ctx);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
