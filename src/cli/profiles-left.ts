import type { AppContext } from '../context.ts';

/**
 * What a command that changed tables ends with, when it left their catalog profiles to the service (a command line
 * does not profile them: see ContextOptions.profileAfterJobs); nothing when none is waiting.
 */
export async function profilesLeftLine(ctx: AppContext): Promise<string | undefined> {
  const waiting = (await ctx.store.tableProfiles.stale()).length;
  if (waiting === 0) return undefined;
  const tables = waiting === 1 ? '1 table' : `${String(waiting)} tables`;
  return `The catalog's profiles of ${tables} it changed are left to the service: refreshed within a minute while it runs, else when it next starts.`;
}
