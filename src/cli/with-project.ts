import type { AppContext } from '../context.ts';
import type { LogFormat } from '../logger.ts';
import { runningServer } from '../os/index.ts';
import { defaultLogFormat } from './log-format.ts';

/**
 * The platform's modules, loaded when a command opens a project rather than when the command line starts: most
 * of a command's start-up is loading them, and a command that asks the running Quarry instead needs none.
 */
async function platformModules() {
  const [context, logger, sourceConfig, alerts, server] = await Promise.all([
    import('../context.ts'), import('../logger.ts'), import('../sources/config/index.ts'), import('../alerts/index.ts'), import('../server/index.ts'),
  ]);
  return { ...context, ...logger, ...sourceConfig, ...alerts, ...server };
}

export interface ProjectCommandOptions {
  logFormat?: LogFormat | undefined;
  passwordCost?: number | undefined;
}

/**
 * Opens a project for one command (warnings to stderr, in `logFormat` or as suits stderr; stdout stays the
 * command's), runs `work`, closes it.
 */
export async function withProject<T>(
  project: string, env: NodeJS.ProcessEnv, work: (ctx: AppContext) => T | Promise<T>, options: ProjectCommandOptions = {},
): Promise<T> {
  const { SecretRedactor, createLogger, createContext, closeContext } = await platformModules();
  const redactor = new SecretRedactor();
  const format = options.logFormat ?? defaultLogFormat(process.stderr);
  const log = createLogger({ level: 'warn', destination: process.stderr, format, redactor });
  const ctx = await createContext({ projectDir: project, env, log, redactor, passwordCost: options.passwordCost, profileAfterJobs: false });
  try {
    return await work(ctx);
  } finally {
    await closeContext(ctx);
  }
}

/**
 * withProject for a command that runs jobs (a sync, a build, a schedule run): its failures and recoveries open
 * and end incidents as the service's jobs do, and the alerts they queue are sent before the command exits, so a
 * project run from cron alerts too. Not while a service runs this project: that one follows its own jobs (and a
 * command beside it fails on the busy warehouse, which is no incident). The command's own error says what
 * failed; the alerts' log keeps to errors on stderr.
 */
export async function withAlertingProject<T>(
  project: string, env: NodeJS.ProcessEnv, work: (ctx: AppContext) => T | Promise<T>, logFormat?: LogFormat,
): Promise<T> {
  return withProject(project, env, async (ctx) => {
    if (runningServer(ctx.paths) !== undefined) return work(ctx);
    const { AlertCenter, webUrl } = await platformModules();
    const alerts = new AlertCenter({
      store: ctx.store, events: ctx.events, alerts: ctx.config.alerts, project: ctx.config.name, env: ctx.env, outbound: ctx.outbound, redactor: ctx.redactor,
      log: ctx.log.child({ module: 'alerts' }, { level: 'error' }), now: ctx.now,
    });
    alerts.start();
    try {
      return await work(ctx);
    } finally {
      alerts.startDelivery(webUrl(ctx));
      await alerts.deliverDue();
      await alerts.close();
    }
  }, { logFormat });
}
