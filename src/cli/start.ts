import { once } from 'node:events';
import type { LogFormat } from '../logger.ts';
import { startPlatform } from '../server/index.ts';
import { defaultLogFormat } from './log-format.ts';

export interface StartOptions {
  project: string;
  host?: string;
  port?: number;
  dashboard?: boolean;
  watcher?: boolean;
  /** With a shared platform store: run jobs from the deployment's queue here too (default true). */
  jobs?: boolean;
  /** How the service logs; left out, pretty on a terminal and JSON elsewhere. */
  logFormat?: LogFormat;
}

/** Serves the platform until SIGINT, SIGTERM or SIGHUP, then closes it down in order. */
export async function servePlatform(options: StartOptions, env: NodeJS.ProcessEnv, onListening: (url: string) => void): Promise<void> {
  const platform = await startPlatform({
    projectDir: options.project, env, host: options.host, ports: { web: options.port }, watcher: options.watcher, dashboard: options.dashboard === false ? 'disabled' : 'run',
    takeJobs: options.jobs,
    logFormat: options.logFormat ?? defaultLogFormat(process.stdout),
  });
  try {
    onListening(platform.url);
    // A closed terminal (SIGHUP) ends it as Ctrl-C does: Superset and the other children are stopped, not left behind.
    const signal = await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM'), once(process, 'SIGHUP')]);
    platform.ctx.log.info({ signal: String(signal[0] ?? '') }, 'shutting down');
  } finally {
    await platform.close();
  }
}
