import { closeContext, createContext, type AppContext } from '../context.ts';
import { createLogger, type LogFormat } from '../logger.ts';
import { defaultLogFormat } from './log-format.ts';

/**
 * Opens a project for one command (warnings to stderr, in `logFormat` or as suits stderr; stdout stays the
 * command's), runs `work`, closes it.
 */
export async function withProject<T>(
  project: string, env: NodeJS.ProcessEnv, work: (ctx: AppContext) => T | Promise<T>, logFormat?: LogFormat,
): Promise<T> {
  const log = createLogger({ level: 'warn', destination: process.stderr, format: logFormat ?? defaultLogFormat(process.stderr) });
  const ctx = createContext({ projectDir: project, env, log });
  try {
    return await work(ctx);
  } finally {
    await closeContext(ctx);
  }
}
