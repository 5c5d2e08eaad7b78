import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { parse, stringify } from 'yaml';
import { initProject } from '../../src/cli/init.ts';
import { projectPaths } from '../../src/config/index.ts';
import { copyToPostgres } from '../../src/store/index.ts';
import { onPostgres } from './local-postgres.ts';
import { LOOPBACK_NETWORK } from './loopback-network.ts';
import type { ObjectStore } from './object-store.ts';
import type { freshPostgresStore } from './postgres-store.ts';
import { QUARRY_BIN } from './quarry-process.ts';

export type Child = ChildProcessByStdio<null, Readable, Readable>;

export const DEPLOYMENT_ADMIN = { email: 'admin@deployment.test', password: 'deployment-admin-password' };

/**
 * A project made for a deployment in `dirs[0]` and copied to the others, as each host keeps its own: its platform
 * store moved into `platform` (a schema of the local PostgreSQL), its lake's catalog in `lakeSchema` beside it and
 * its data in the bucket `lake` of `bucket`, its sources `sourcesYaml`; `projectConfig` is merged over project.yml.
 */
export async function prepareDeployment(options: {
  dirs: readonly string[]; platform: ReturnType<typeof freshPostgresStore>; lakeSchema: string; bucket: ObjectStore; sourcesYaml: string;
  projectConfig?: Record<string, unknown>;
}): Promise<void> {
  const [first, ...copies] = options.dirs;
  if (first === undefined) throw new Error('a deployment needs a project folder');
  const { platform, bucket } = options;
  await initProject(first, { name: 'Deployment', organization: 'Test', adminEmail: DEPLOYMENT_ADMIN.email, nonInteractive: true, passwordCost: 4 }, {
    QUARRY_ADMIN_PASSWORD: DEPLOYMENT_ADMIN.password,
  });
  const paths = projectPaths(first);
  await copyToPostgres(paths.platformDb, platform, () => undefined);
  const config = parse(readFileSync(paths.projectFile, 'utf8')) as Record<string, unknown>;
  writeFileSync(paths.projectFile, stringify({
    ...config,
    network: LOOPBACK_NETWORK,
    watcher: { enabled: false },
    dashboard: { enabled: false },
    platform: { store: platform.url, schema: platform.schema },
    warehouse: { catalog: platform.url, metadata_schema: options.lakeSchema, data_path: 's3://lake/deployment' },
    object_store: { endpoint: bucket.endpoint, region: bucket.region, url_style: 'path', use_ssl: false, access_key_id_env: 'S3_KEY_ID', secret_access_key_env: 'S3_SECRET' },
    ...options.projectConfig,
  }));
  writeFileSync(paths.sourcesFile, options.sourcesYaml);
  writeFileSync(paths.envFile, `S3_KEY_ID=${bucket.accessKeyId}\nS3_SECRET=${bucket.secretAccessKey}\n`, { mode: 0o600 });
  // Its state is in PostgreSQL now: a copy of the file would only mislead.
  rmSync(paths.platformDb, { force: true });
  for (const copy of copies) cpSync(first, copy, { recursive: true });
}

/** What prepareDeployment made in PostgreSQL, and the queue's schema beside the store's, removed. */
export async function dropDeployment(platform: ReturnType<typeof freshPostgresStore>, lakeSchema: string): Promise<void> {
  await platform.drop();
  await onPostgres(async (client) => {
    await client.query(`DROP SCHEMA IF EXISTS ${platform.schema}_queue CASCADE`);
    await client.query(`DROP SCHEMA IF EXISTS ${lakeSchema} CASCADE`);
  });
}

/** `quarry worker` over `dir`, resolved once it takes jobs. */
export async function startWorker(dir: string, name: string, concurrency: number): Promise<Child> {
  const child = spawn(QUARRY_BIN, ['worker', '--project', dir, '--name', name, '--concurrency', String(concurrency)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      if (output.includes(`Quarry worker ${name} is taking jobs`)) resolve();
    });
    child.on('exit', (code) => { reject(new Error(`worker ${name} exited ${String(code)}: ${output}`)); });
  });
  return child;
}

/** Stops a Quarry process as systemd would (SIGTERM), unless it has ended. */
export async function stopProcess(child: Child | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** The admin's session cookie on a web process of the deployment. */
export async function signInAdmin(url: string): Promise<string> {
  const login = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(DEPLOYMENT_ADMIN) });
  if (login.status !== 200) throw new Error(`the admin could not sign in: ${String(login.status)} ${await login.text()}`);
  return login.headers.getSetCookie()[0]!.split(';')[0]!;
}

/** sources.yml of REST sources named `names`, each reading `${apiUrl}/<name>/items`, page by page when `paginator` is given. */
export function restSourcesYaml(apiUrl: string, names: readonly string[], paginator?: string): string {
  const source = (name: string): string[] => [
    `  - name: ${name}`, '    type: rest_api', '    rest_api:', `      base_url: ${apiUrl}/${name}`, '      auth_type: none',
    '      endpoints:', `        - {path: /items, data_selector: data, primary_key: id${paginator === undefined ? '' : `, paginator: ${paginator}`}}`,
  ];
  return ['sources:', ...names.flatMap(source), ''].join('\n');
}
