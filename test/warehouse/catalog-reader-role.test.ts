import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initProject } from '../../src/cli/init.ts';
import { createLogger } from '../../src/logger.ts';
import { pythonExecutable } from '../../src/python/index.ts';
import { startPlatform } from '../../src/server/index.ts';
import { DUCKDB_EXTENSIONS_DIR, lakeChildEnv, READER_SANDBOX_PYTHON_PATH, readerLocation } from '../../src/warehouse/index.ts';
import { captureLog } from '../support/captured-log.ts';
import { onPostgres } from '../support/local-postgres.ts';
import { EMAILS, PASSWORDS, startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

// A lake whose catalog is in the local PostgreSQL (trust authentication), written by a role that owns only the
// lake's schema and read by a role granted as docs/operations.md says; roles and schema are this run's own.
const suffix = `${String(process.pid)}_${Date.now().toString(36)}`;
const schema = `quarry_lake_roles_${suffix}`;
const writer = `quarry_writer_${suffix}`;
const reader = `quarry_reader_${suffix}`;
const ungranted = `quarry_ungranted_${suffix}`;
const READER_SECRET = 'reader-secret-never-shown';

/** The roles PostgreSQL sees on this lake's reader sessions (application name quarry-reader) right now. */
const readerSessionRoles = (): Promise<string[]> => onPostgres(async (client) => (await client.query<{ usename: string }>(
  'SELECT DISTINCT usename FROM pg_stat_activity WHERE application_name = $1 AND usename = ANY($2) ORDER BY usename',
  ['quarry-reader', [writer, reader, ungranted]],
)).rows.map((row) => row.usename));

function warehouseSection(dataPath: string, readerUser: string): Record<string, unknown> {
  return {
    catalog: `postgres://${writer}@127.0.0.1:5432/test`, metadata_schema: schema, data_path: dataPath,
    reader: { user: readerUser },
  };
}

describe('a PostgreSQL catalog read by a read-only reader role', () => {
  let shared: string;
  let quarry: TestQuarry;
  const log = captureLog();

  beforeAll(async () => {
    await onPostgres((client) => client.query([
      `CREATE ROLE ${writer} LOGIN`,
      `CREATE SCHEMA ${schema} AUTHORIZATION ${writer}`,
      `CREATE ROLE ${reader} LOGIN`,
      `GRANT USAGE ON SCHEMA ${schema} TO ${reader}`,
      `ALTER DEFAULT PRIVILEGES FOR ROLE ${writer} IN SCHEMA ${schema} GRANT SELECT ON TABLES TO ${reader}`,
      `CREATE ROLE ${ungranted} LOGIN`,
    ].join(';\n')));
    shared = await mkdtemp(path.join(tmpdir(), 'quarry-reader-role-'));
    mkdirSync(path.join(shared, 'files'), { recursive: true });
    writeFileSync(path.join(shared, 'files', 'a.csv'), 'id,region,amount\n1,north,10\n2,south,20\n3,north,5\n');
    quarry = await startQuarry({
      sourcesYaml: `sources:\n  - name: orders\n    type: local_files\n    local_files: { directory: ${JSON.stringify(path.join(shared, 'files'))} }\n`,
      projectConfig: { warehouse: warehouseSection(path.join(shared, 'lake'), reader), watcher: { enabled: false }, data_roots: [path.join(shared, 'files')] },
      env: { QUARRY_WAREHOUSE_READER_PASSWORD: READER_SECRET },
      log: log.log,
    });
  }, 120_000);

  afterAll(async () => {
    await quarry.close();
    await onPostgres((client) => client.query([
      `DROP SCHEMA IF EXISTS ${schema} CASCADE`,
      `DROP OWNED BY ${writer}, ${reader}, ${ungranted}`,
      `DROP ROLE IF EXISTS ${reader}`, `DROP ROLE IF EXISTS ${ungranted}`, `DROP ROLE IF EXISTS ${writer}`,
    ].join(';\n')));
    await rm(shared, { recursive: true, force: true });
  }, 60_000);

  it('syncs as the writer and answers POST /api/query, the catalog, the snapshot list and health in sessions of the reader role', async () => {
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 3 });
    const answer = await quarry.request('POST', '/api/query', { as: 'viewer', body: { sql: 'SELECT count(*)::INTEGER AS n, sum(amount)::INTEGER AS total FROM raw_orders.orders' } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.rows).toEqual([[3, 35]]);
    expect(await readerSessionRoles()).toEqual([reader]);
    const tables = await quarry.request('GET', '/api/catalog/tables', { as: 'viewer' });
    expect(tables.status, tables.text).toBe(200);
    expect(tables.text).toContain('orders');
    const snapshots = await quarry.request('GET', '/api/warehouse/snapshots', { as: 'viewer' });
    expect(snapshots.status, snapshots.text).toBe(200);
    expect(snapshots.json[0]).toMatchObject({ tables_changed: ['raw_orders.orders'] });
    const health = await quarry.request('GET', '/api/health/platform', { as: 'viewer' });
    expect(health.status, health.text).toBe(200);
    expect(health.json.critical_issues.filter((issue: string) => issue.includes('cannot read the warehouse'))).toEqual([]);
    expect(JSON.stringify(log.records())).not.toContain(READER_SECRET);
  }, 120_000);

  it('leaves the reader role unable to change the catalog, as PostgreSQL itself refuses', async () => {
    await expect(onPostgres((client) => client.query(`DELETE FROM ${schema}.ducklake_snapshot`), reader)).rejects.toThrow(/permission denied for table ducklake_snapshot/);
    await expect(onPostgres((client) => client.query(`CREATE TABLE ${schema}.intruder (x int)`), reader)).rejects.toThrow(/permission denied for schema/);
  }, 30_000);

  it('hands the dashboard tool the reader role: its Python sandbox reads the lake as that role', async () => {
    const lake = lakeChildEnv(readerLocation(quarry.ctx.lake));
    expect(lake.QUARRY_LAKE_ATTACH).toContain(`user=${reader} `);
    expect(lake.QUARRY_LAKE_ATTACH).not.toContain(READER_SECRET);
    expect(lake.PGPASSWORD).toBe(READER_SECRET);
    const script = [
      'import sys',
      'from reader_sandbox import connect_sandboxed',
      'connection = connect_sandboxed(sys.argv[1], sys.argv[2], sys.argv[3], metadata_schema=sys.argv[4])',
      'print(connection.execute("select count(*) from raw_orders.orders").fetchone()[0])',
    ].join('\n');
    const { stdout } = await promisify(execFile)(pythonExecutable('superset', quarry.ctx.env.QUARRY_PYTHON_ENVS_DIR), [
      '-c', script, lake.QUARRY_LAKE_ATTACH ?? '', quarry.ctx.lake.dataPath, DUCKDB_EXTENSIONS_DIR, schema,
    ], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PYTHONPATH: READER_SANDBOX_PYTHON_PATH } });
    expect(stdout.trim()).toBe('3');
  }, 60_000);

  it.each([
    ['has no grant on the lake\'s schema', () => ungranted, /reader role \(warehouse\.reader in project\.yml\) postgres:\/\/quarry_ungranted_\w+@127\.0\.0\.1:5432\/test cannot read the lake: permission denied for schema/],
    ['does not exist', () => 'no_such_quarry_reader', /reader role \(warehouse\.reader in project\.yml\) postgres:\/\/no_such_quarry_reader@127\.0\.0\.1:5432\/test cannot read the lake: .*no_such_quarry_reader/],
  ])('stops the start with a located error when the reader role %s, never naming its password', async (_case, readerUser, message) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'quarry-test-'));
    const env = { QUARRY_ADMIN_PASSWORD: PASSWORDS.admin, QUARRY_WAREHOUSE_READER_PASSWORD: READER_SECRET };
    try {
      await initProject(dir, { name: 'Test project', organization: '', adminEmail: EMAILS.admin, nonInteractive: true }, env);
      const section = warehouseSection(path.join(shared, 'lake'), readerUser());
      writeFileSync(path.join(dir, '.quarry', 'project.yml'), `name: Test project\nwarehouse: ${JSON.stringify(section)}\n`);
      const error = await startPlatform({
        projectDir: dir, env, log: createLogger({ level: 'silent' }), host: '127.0.0.1', ports: { web: 0, dashboard: 0 },
        watcher: false, transform: false, docsServer: false, dashboard: 'not_started',
      }).then(async (platform) => { await platform.close(); return undefined; }, (failure: unknown) => failure);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain(READER_SECRET);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
