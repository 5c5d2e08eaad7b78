import { closeContext, createContext, type AppContext } from '../context.ts';
import { createLogger } from '../logger.ts';

/** Opens a project for one command (warnings to stderr, stdout stays the command's), runs `work`, closes it. */
export async function withProject<T>(project: string, env: NodeJS.ProcessEnv, work: (ctx: AppContext) => T | Promise<T>): Promise<T> {
  const ctx = createContext({ projectDir: project, env, log: createLogger({ level: 'warn', destination: process.stderr }) });
  try {
    return await work(ctx);
  } finally {
    await closeContext(ctx);
  }
}
