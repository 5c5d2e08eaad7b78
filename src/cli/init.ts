import path from 'node:path';
import { assertAcceptablePassword, assertValidEmail } from '../auth/index.ts';
import { projectPaths } from '../config/index.ts';
import { ensureDbtProject } from '../transform/index.ts';
import { createProjectFiles } from './create-project-files.ts';
import { isInteractive, valueOrPrompt } from './prompt-or-flag.ts';
import { writeDemoDashboard, writeDemoData, writeDemoModels, DEMO_SOURCES_YAML } from './demo-data.ts';
import { withProject } from './with-project.ts';

export interface InitOptions {
  name?: string;
  organization?: string;
  adminEmail?: string;
  adminPassword?: string;
  nonInteractive?: boolean;
  demo?: boolean;
  /** bcrypt's work factor for the admin's password (PASSWORD_COST unless told). */
  passwordCost?: number;
}

/** Creates a project: configuration files, the dbt project, the platform database and its first admin. */
export async function initProject(directory: string, options: InitOptions, env: NodeJS.ProcessEnv): Promise<{ root: string; adminEmail: string }> {
  const interactive = isInteractive(options.nonInteractive);
  const paths = projectPaths(directory);
  const name = await valueOrPrompt(options.name, {
    flag: '--name', message: 'Project name', interactive, default: path.basename(paths.root),
  });
  const adminEmail = await valueOrPrompt(options.adminEmail, {
    flag: '--admin-email', message: 'Admin email', interactive,
  });
  const adminPassword = await valueOrPrompt(options.adminPassword ?? env.QUARRY_ADMIN_PASSWORD, {
    flag: '--admin-password (or QUARRY_ADMIN_PASSWORD)', message: 'Admin password (at least 8 characters)', interactive, secret: true,
  });
  assertValidEmail(adminEmail);
  assertAcceptablePassword(adminPassword);
  createProjectFiles(paths, {
    name,
    organization: options.organization ?? '',
    // The demo shows the whole chain: a synced file runs the models and refreshes the dashboard.
    ...(options.demo === true ? { sourcesYaml: DEMO_SOURCES_YAML, autoTransform: true } : {}),
  });
  ensureDbtProject(paths);
  if (options.demo === true) {
    writeDemoData(paths);
    writeDemoModels(paths);
    writeDemoDashboard(paths);
  }
  await withProject(paths.root, env, (ctx) => ctx.auth.addUser({ email: adminEmail, name: 'Administrator', role: 'admin', password: adminPassword }), {
    passwordCost: options.passwordCost,
  });
  return { root: paths.root, adminEmail };
}
