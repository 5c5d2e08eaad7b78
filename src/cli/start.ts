import { once } from 'node:events';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { closeContext, createContext, type AppContext } from '../context.ts';
import { startDashboard } from '../dashboard/index.ts';
import { fileSourceLocation } from '../jobs/index.ts';
import { buildApp, startWatcher, webUrl } from '../server/index.ts';
import { removeUnfinishedUploads } from '../sources/index.ts';
import { startDocsServer } from '../transform/index.ts';

export interface StartOptions {
  project: string;
  host?: string;
  port?: number;
  dashboard?: boolean;
  watcher?: boolean;
  /** Runs once the platform listens (the demo loads its sample data then). */
  afterListening?: (ctx: AppContext) => void;
}

/** Serves the platform until SIGINT or SIGTERM, then closes it down in order. */
export async function startPlatform(options: StartOptions, env: NodeJS.ProcessEnv, onListening: (url: string) => void): Promise<void> {
  const ctx = createContext({ projectDir: options.project, env });
  ctx.jobs.recoverInterrupted();
  for (const source of ctx.sources) {
    const location = fileSourceLocation(source, ctx.paths.root);
    const removed = location === undefined ? 0 : await removeUnfinishedUploads(location.directory);
    if (removed > 0) ctx.log.warn({ source: source.name, removed }, 'removed the temp files of uploads interrupted when the service stopped');
  }
  const pidFile = path.join(ctx.paths.runDir, 'server.pid');
  const watcher = options.watcher !== false && ctx.config.watcher.enabled ? startWatcher(ctx) : undefined;
  ctx.transform.start();
  const docsServer = startDocsServer({ paths: ctx.paths, log: ctx.log.child({ module: 'transform-docs' }), pythonEnvironmentsDir: ctx.env.QUARRY_PYTHON_ENVS_DIR });
  const dashboardEnabled = options.dashboard !== false && ctx.config.dashboard.enabled;
  const dashboard = dashboardEnabled
    ? startDashboard({
      paths: ctx.paths, config: ctx.config, log: ctx.log.child({ module: 'dashboard' }), pythonEnvironmentsDir: ctx.env.QUARRY_PYTHON_ENVS_DIR,
      baseEnv: { PATH: ctx.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: ctx.env.HOME ?? ctx.paths.runDir },
    })
    : undefined;
  try {
    const app = await buildApp(ctx, { watcher, docsServer, dashboard, dashboardEnabled });
    const host = options.host ?? ctx.config.web.host;
    const port = options.port ?? ctx.config.web.port;
    try {
      await app.listen({ host, port });
      writeFileSync(pidFile, `${process.pid}\n`);
      onListening(webUrl(ctx, app));
      options.afterListening?.(ctx);
      const signal = await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
      ctx.log.info({ signal: String(signal[0] ?? '') }, 'shutting down');
    } finally {
      await app.close();
    }
  } finally {
    await watcher?.stop();
    await docsServer?.stop();
    await dashboard?.stop();
    rmSync(pidFile, { force: true });
    await closeContext(ctx);
  }
}
