import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonExecutable } from '../../src/python/index.ts';
import { READER_SANDBOX_PYTHON_PATH } from '../../src/warehouse/index.ts';
import { awaitDemoDashboard, dashboardSession, runInSqlLab, type DashboardSession } from '../support/dashboard-session.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

// Whoever may run SQL on the warehouse through a reader (an editor in SQL Lab, anyone whose chart
// carries custom SQL) must not be able to write a byte anywhere: not the replica the dashboards read,
// not its WAL, not a file next to it.

const REPLICA_UNREADABLE = /Dashboards cannot read the published copy of the warehouse/;

describe('writes through every reader of the warehouse', () => {
  let quarry: TestQuarry;
  let databaseId: number;
  let editor: DashboardSession;
  let replica: string;

  const digest = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');
  const health = async (): Promise<{ status: string; critical_issues: string[] }> =>
    (await quarry.request('GET', '/api/health/platform', { as: 'viewer' })).json;

  beforeAll(async () => {
    quarry = await startQuarry({ dashboard: true, demo: true, transform: true });
    databaseId = await awaitDemoDashboard(quarry);
    editor = await dashboardSession(quarry, 'editor');
    replica = path.join(quarry.dir, 'warehouse', 'serving', 'current', 'warehouse.duckdb');
  }, 300_000);
  afterAll(async () => {
    await quarry.close();
  }, 60_000);

  it('refuses every writing statement in SQL Lab before it runs, and the replica stays whole', async () => {
    const published = realpathSync(replica);
    const before = digest(published);
    const refusal = /statements are refused: the warehouse is read-only here/;
    const statements: [string, RegExp][] = [
      [`COPY (select 'junk' as a) TO '${replica}' (FORMAT csv, USE_TMP_FILE false)`, refusal],
      [`COPY (select 'junk' as a) TO '${published}' (FORMAT csv, USE_TMP_FILE false)`, refusal],
      [`COPY (select 'junk' as a) TO '${replica}.wal' (FORMAT csv)`, refusal],
      [`select 1; COPY (select 'junk' as a) TO '${replica}' (FORMAT csv, USE_TMP_FILE false)`, refusal],
      // Superset refuses these two itself, first: its parser does not know EXPORT, and allow_dml sees CREATE.
      [`EXPORT DATABASE '${path.join(quarry.dir, 'exported')}'`, new RegExp(`${refusal.source}|INVALID_SQL_ERROR`)],
      ['create table marts.intruder as select 1 as x', new RegExp(`${refusal.source}|DML_NOT_ALLOWED_ERROR`)],
      [`ATTACH '${path.join(quarry.dir, 'other.duckdb')}' AS other`, refusal],
      ['INSTALL httpfs', refusal],
      ["SET disabled_filesystems = ''", refusal],
      ['CHECKPOINT', refusal],
    ];
    for (const [sql, expected] of statements) {
      const response = await runInSqlLab(quarry, editor, databaseId, sql);
      expect({ sql, refused: response.status >= 400, text: response.text }).toEqual({ sql, refused: true, text: expect.stringMatching(expected) });
    }
    expect(digest(published)).toBe(before);
    expect(existsSync(`${replica}.wal`)).toBe(false);
    expect(existsSync(path.join(quarry.dir, 'exported'))).toBe(false);
    const count = await runInSqlLab(quarry, editor, databaseId, 'select count(*) as n from marts.orders_enriched');
    expect(count.json.data).toEqual([{ n: 240 }]);
    expect((await health()).critical_issues).not.toContainEqual(expect.stringMatching(REPLICA_UNREADABLE));
  });

  it('keeps a reader from writing even when a statement gets past the check', async () => {
    const python = pythonExecutable('superset', quarry.ctx.env.QUARRY_PYTHON_ENVS_DIR);
    const script = [
      'import sys',
      'from reader_sandbox import connect_sandboxed',
      'connection = connect_sandboxed(sys.argv[1])',
      'print(connection.execute("select count(*) from marts.orders_enriched").fetchone()[0])',
      'for sql in sys.argv[2:]:',
      '    try:',
      '        connection.execute(sql)',
      '        print("wrote:", sql)',
      '    except Exception as error:',
      '        print("refused:", type(error).__name__)',
    ].join('\n');
    const before = digest(realpathSync(replica));
    const { stdout } = await promisify(execFile)(python, ['-c', script, replica,
      `COPY (select 'junk' as a) TO '${replica}' (FORMAT csv, USE_TMP_FILE false)`,
      `COPY (select 'junk' as a) TO '${replica}.wal' (FORMAT csv)`,
      "select * from read_text('/etc/passwd')",
      "SET disabled_filesystems = ''",
      'SET enable_external_access = true',
      `ATTACH '${path.join(quarry.dir, 'other.duckdb')}' AS other`,
    ], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PYTHONPATH: READER_SANDBOX_PYTHON_PATH } });
    expect(stdout.trim().split('\n')).toEqual(['240', ...Array.from({ length: 6 }, () => expect.stringMatching(/^refused: /))]);
    expect(digest(realpathSync(replica))).toBe(before);
  });

  it('publishes the replica read-only on disk', () => {
    const published = realpathSync(replica);
    expect(statSync(published).mode & 0o777).toBe(0o444);
    expect(statSync(path.dirname(published)).mode & 0o777).toBe(0o555);
  });

  it('reports an unreadable replica as critical, and the next sync publishes a readable one', async () => {
    expect((await health()).critical_issues).not.toContainEqual(expect.stringMatching(REPLICA_UNREADABLE));
    const published = realpathSync(replica);
    chmodSync(published, 0o644);
    writeFileSync(published, 'a\njunk\n');
    const broken = await health();
    expect(broken.status).toBe('critical');
    expect(broken.critical_issues).toContainEqual(expect.stringMatching(REPLICA_UNREADABLE));

    expect(await syncAndWait(quarry, 'orders', true)).toMatchObject({ type: 'sync_completed' });
    expect((await health()).critical_issues).not.toContainEqual(expect.stringMatching(REPLICA_UNREADABLE));
    const count = await runInSqlLab(quarry, editor, databaseId, 'select count(*) as n from marts.orders_enriched');
    expect(count.json.data).toEqual([{ n: 240 }]);
  });
});
