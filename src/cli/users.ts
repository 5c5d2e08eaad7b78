import { ROLES, type Role } from '../store/index.ts';
import { CliError } from './cli-error.ts';
import { isInteractive, valueOrPrompt } from './prompt-or-flag.ts';
import { withProject } from './with-project.ts';

export interface AddUserOptions {
  project: string;
  email?: string;
  name?: string;
  role?: string;
  password?: string;
  nonInteractive?: boolean;
}

function parseRole(value: string): Role {
  const role = ROLES.find((candidate) => candidate === value);
  if (!role) throw new CliError(`--role must be one of ${ROLES.join(', ')}`);
  return role;
}

export async function addUser(options: AddUserOptions, env: NodeJS.ProcessEnv): Promise<string> {
  const interactive = isInteractive(options.nonInteractive);
  const email = await valueOrPrompt(options.email, { flag: '--email', message: 'Email', interactive });
  const role = parseRole(await valueOrPrompt(options.role, { flag: '--role', message: `Role (${ROLES.join(', ')})`, interactive, default: 'viewer' }));
  const password = await valueOrPrompt(options.password, { flag: '--password', message: 'Password (at least 8 characters)', interactive, secret: true });
  return withProject(options.project, env, async (ctx) => {
    const user = await ctx.auth.addUser({ email, name: options.name ?? '', role, password });
    return `Added ${user.email} (${user.role})`;
  });
}

export async function describeAuthStatus(project: string, env: NodeJS.ProcessEnv): Promise<string> {
  return withProject(project, env, async (ctx) => {
    const users = await ctx.store.users.list();
    const { session_max_days: maxDays, idle_timeout_minutes: idle, password_max_age_days: maxAge } = ctx.config.auth;
    return [
      'Authentication: enabled',
      `Users: ${users.length} (${ROLES.map((role) => `${users.filter((user) => user.role === role && user.active).length} ${role}`).join(', ')})`,
      `Sessions: expire after ${maxDays} days, or ${idle} minutes without requests`,
      `Password rotation: ${maxAge > 0 ? `every ${maxAge} days` : 'off'}`,
    ].join('\n');
  });
}

export async function unlockUser(project: string, email: string, env: NodeJS.ProcessEnv): Promise<string> {
  return withProject(project, env, async (ctx) => {
    const cleared = await ctx.auth.unlock(email);
    return cleared > 0 ? `Unlocked ${email} (${String(cleared)} client${cleared === 1 ? '' : 's'} cleared)` : `${email} had no failed logins`;
  });
}

export async function recoverAdmin(project: string, env: NodeJS.ProcessEnv): Promise<string> {
  return withProject(project, env, async (ctx) => {
    const { email, password } = await ctx.auth.recover();
    return [
      `Emergency admin created: ${email}`,
      `Temporary password (shown once): ${password}`,
      'Sign in with it; Quarry will ask for a new password at once.',
    ].join('\n');
  });
}

/** Projects always authenticate; `enable` exists for older projects that have no user yet. */
export async function enableAuth(options: { project: string; email?: string; password?: string; nonInteractive?: boolean }, env: NodeJS.ProcessEnv): Promise<string> {
  return withProject(options.project, env, async (ctx) => {
    if (await ctx.store.users.count() > 0) return 'Authentication is already enabled';
    const interactive = isInteractive(options.nonInteractive);
    const email = await valueOrPrompt(options.email, { flag: '--email', message: 'Admin email', interactive });
    const password = await valueOrPrompt(options.password ?? env.QUARRY_ADMIN_PASSWORD, { flag: '--password', message: 'Admin password', interactive, secret: true });
    const user = await ctx.auth.addUser({ email, name: 'Administrator', role: 'admin', password });
    return `Authentication enabled with admin ${user.email}`;
  });
}
