import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { projectPaths } from '../config/index.ts';
import { initProject } from './init.ts';

const DEMO_ADMIN_EMAIL = 'admin@example.com';

export interface DemoLogin {
  readonly root: string;
  readonly email: string;
  readonly password: string;
}

/**
 * Creates the demo project on first use, with a generated admin password kept beside its
 * configuration (mode 0600) so every `quarry demo` can print the login again.
 */
export async function ensureDemoProject(directory: string, env: NodeJS.ProcessEnv): Promise<DemoLogin> {
  const paths = projectPaths(directory);
  const credentialsFile = path.join(paths.configDir, 'demo-admin.json');
  if (existsSync(paths.projectFile) && existsSync(credentialsFile)) {
    const saved = JSON.parse(readFileSync(credentialsFile, 'utf8')) as { email: string; password: string };
    return { root: paths.root, ...saved };
  }
  const password = randomBytes(12).toString('base64url');
  await initProject(paths.root, {
    name: 'Quarry demo',
    organization: 'Demo Org',
    adminEmail: DEMO_ADMIN_EMAIL,
    adminPassword: password,
    nonInteractive: true,
    demo: true,
  }, env);
  writeFileSync(credentialsFile, JSON.stringify({ email: DEMO_ADMIN_EMAIL, password }), { mode: 0o600 });
  return { root: paths.root, email: DEMO_ADMIN_EMAIL, password };
}
