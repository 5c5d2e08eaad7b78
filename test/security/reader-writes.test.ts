import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_PROCESS_MEMORY } from '../../src/dashboard/index.ts';
import { pythonExecutable } from '../../src/python/index.ts';
import { DUCKDB_EXTENSIONS_DIR, lakeLocation, READER_SANDBOX_PYTHON_PATH } from '../../src/warehouse/index.ts';
import { awaitDemoDashboard, dashboardSession, runInSqlLab, type DashboardSession } from '../support/dashboard-session.ts';
import { touchAsSeenBy } from '../support/mount-namespace.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

// Whoever may run SQL on the warehouse through a reader (an editor in SQL Lab, anyone whose chart
// carries custom SQL) must not be able to write a byte anywhere: not the lake's catalog, not its data
// files, not a file next to them; nor read another database through the catalog's extension.

const LAKE_UNREADABLE = /readers cannot read the warehouse/;

describe('writes through every reader of the warehouse', () => {
  let quarry: TestQuarry;
  let databaseId: number;
  let editor: DashboardSession;
  let catalog: string;
  let dataPath: string;

  const dataFiles = (): string[] => readdirSync(dataPath, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.parquet')).map((file) => path.join(dataPath, file)).sort();
  const digest = (files: readonly string[]): string => {
    const hash = createHash('sha256');
    for (const file of files) hash.update(file).update(readFileSync(file));
    return hash.digest('hex');
  };
  const health = async (): Promise<{ status: string; critical_issues: string[] }> =>
    (await quarry.request('GET', '/api/health/platform', { as: 'viewer' })).json;

  beforeAll(async () => {
    quarry = await startQuarry({ dashboard: true, demo: true, transform: true });
    databaseId = await awaitDemoDashboard(quarry);
    editor = await dashboardSession(quarry, 'editor');
    ({ dataPath } = lakeLocation(quarry.ctx.paths));
    catalog = quarry.ctx.paths.lakeCatalogFile;
  }, 300_000);
  afterAll(async () => {
    await quarry.close();
  }, 60_000);

  it('refuses every writing statement and every escape through the catalog extension in SQL Lab before it runs', async () => {
    await quarry.jobsIdle();
    const [someDataFile] = dataFiles();
    const before = digest([...dataFiles(), catalog]);
    const refusal = /refused: the warehouse is read-only here/;
    const platformDb = path.join(quarry.dir, '.quarry', 'platform.db');
    const statements: [string, RegExp][] = [
      [`COPY (select 'junk' as a) TO '${someDataFile ?? ''}' (FORMAT parquet)`, refusal],
      [`COPY (select 'junk' as a) TO '${path.join(dataPath, 'planted.parquet')}' (FORMAT parquet)`, refusal],
      [`COPY (select 'junk' as a) TO '${catalog}-wal' (FORMAT csv)`, refusal],
      [`select 1; COPY (select 'junk' as a) TO '${catalog}' (FORMAT csv, USE_TMP_FILE false)`, refusal],
      // Superset refuses these two itself, first: its parser does not know EXPORT, and allow_dml sees CREATE.
      [`EXPORT DATABASE '${path.join(quarry.dir, 'exported')}'`, new RegExp(`${refusal.source}|INVALID_SQL_ERROR`)],
      ['create table marts.intruder as select 1 as x', new RegExp(`${refusal.source}|DML_NOT_ALLOWED_ERROR`)],
      [`ATTACH '${path.join(quarry.dir, 'other.duckdb')}' AS other`, refusal],
      [`ATTACH 'ducklake:sqlite:${catalog}' AS writable (DATA_PATH '${dataPath}')`, refusal],
      [`ATTACH '${platformDb}' AS platform (TYPE sqlite)`, refusal],
      [`select * from sqlite_scan('${platformDb}', 'users')`, refusal],
      [`select * from main.sqlite_query('${platformDb}', 'select * from users')`, refusal],
      [`select * from query('select * from sqlite_scan(''${platformDb}'', ''users'')')`, refusal],
      [`select * from json_execute_serialized_sql(json_serialize_sql('select 1'))`, refusal],
      ["CALL ducklake_expire_snapshots('warehouse', older_than => now())", refusal],
      ['INSTALL httpfs', refusal],
      ["SET allowed_directories = ['/']", refusal],
      ['USE memory', refusal],
      ['CHECKPOINT', refusal],
    ];
    for (const [sql, expected] of statements) {
      const response = await runInSqlLab(quarry, editor, databaseId, sql);
      expect({ sql, refused: response.status >= 400, text: response.text }).toEqual({ sql, refused: true, text: expect.stringMatching(expected) });
    }
    expect(digest([...dataFiles(), catalog])).toBe(before);
    expect(existsSync(path.join(quarry.dir, 'exported'))).toBe(false);
    const count = await runInSqlLab(quarry, editor, databaseId, 'select count(*) as n from marts.orders_enriched');
    expect(count.json.data).toEqual([{ n: 240 }]);
    expect((await health()).critical_issues).not.toContainEqual(expect.stringMatching(LAKE_UNREADABLE));
  });

  it('keeps a reader off the host\'s files, the lake\'s writer and its settings even when a statement gets past the check', async () => {
    const python = pythonExecutable('superset', quarry.ctx.env.QUARRY_PYTHON_ENVS_DIR);
    const script = [
      'import sys',
      'from reader_sandbox import connect_sandboxed',
      'connection = connect_sandboxed(sys.argv[1], sys.argv[2], sys.argv[3])',
      'print(connection.execute("select count(*) from marts.orders_enriched").fetchone()[0])',
      'for sql in sys.argv[4:]:',
      '    try:',
      '        connection.execute(sql)',
      '        print("wrote:", sql)',
      '    except Exception as error:',
      '        print("refused:", type(error).__name__)',
    ].join('\n');
    const before = digest([...dataFiles(), catalog]);
    const { stdout } = await promisify(execFile)(python, ['-c', script, catalog, dataPath, DUCKDB_EXTENSIONS_DIR,
      `COPY (select 'junk' as a) TO '${catalog}' (FORMAT csv, USE_TMP_FILE false)`,
      "select * from read_text('/etc/passwd')",
      `COPY (select 'junk' as a) TO '${path.join(quarry.dir, 'planted.csv')}' (FORMAT csv)`,
      'create table marts.intruder as select 1 as x',
      "SET allowed_directories = ['/']",
      'SET enable_external_access = true',
      `ATTACH '${path.join(quarry.dir, 'other.duckdb')}' AS other`,
      `LOAD '${path.join(DUCKDB_EXTENSIONS_DIR, 'postgres_scanner.duckdb_extension')}'`,
    ], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PYTHONPATH: READER_SANDBOX_PYTHON_PATH } });
    expect(stdout.trim().split('\n')).toEqual(['240', ...Array.from({ length: 8 }, () => expect.stringMatching(/^refused: /))]);
    expect(digest([...dataFiles(), catalog])).toBe(before);
    expect(existsSync(path.join(quarry.dir, 'planted.csv'))).toBe(false);
  });

  it('refuses in SQL Lab a value larger than a reader may build, before DuckDB builds it, and answers the next query', async () => {
    const refusals: [string, string][] = [
      ['SELECT len(range(300000000)) AS n', 'range would make a list of 300000000 elements'],
      ["SELECT length(repeat('x', 3000000000)) AS n", 'repeat would make 3000000000 bytes'],
    ];
    for (const [sql, what] of refusals) {
      const response = await runInSqlLab(quarry, editor, databaseId, sql);
      expect({ refused: response.status >= 400, text: response.text }).toEqual({ refused: true, text: expect.stringContaining(`A value of more than 64 MB is not built here: ${what}`) });
    }
    const count = await runInSqlLab(quarry, editor, databaseId, 'select count(*) as n from marts.orders_enriched');
    expect(count.json.data).toEqual([{ n: 240 }]);
  });

  it('runs SQL Lab in processes whose memory is capped and that see the lake read-only: a query building many large values fails alone', async () => {
    const gunicorns = (await promisify(execFile)('pgrep', ['gunicorn'])).stdout.trim().split('\n')
      .filter((pid) => readFileSync(`/proc/${pid}/environ`, 'latin1').includes(`SUPERSET_HOME=${quarry.ctx.paths.dashboardHome}\0`));
    expect(gunicorns.length).toBeGreaterThanOrEqual(2); // the arbiter and its worker
    for (const pid of gunicorns) {
      expect(readFileSync(`/proc/${pid}/limits`, 'utf8')).toMatch(new RegExp(`^Max data size +${String(DASHBOARD_PROCESS_MEMORY)} +${String(DASHBOARD_PROCESS_MEMORY)} +bytes`, 'm'));
      // The lake's data folder is read-only for the tool, whatever a statement that got past the check would try.
      expect(await touchAsSeenBy(pid, path.join(dataPath, 'planted.parquet'))).toMatch(/Read-only file system/);
    }
    // 400 values of 64 MB in one chunk of rows: 26 GB, all outside DuckDB's memory limit, had it been allowed to.
    const response = await runInSqlLab(quarry, editor, databaseId, "SELECT max(length(repeat('x', 67000000 + i::INT))) AS n FROM range(400) t(i)");
    expect({ failed: response.status >= 400, text: response.text }).toEqual({ failed: true, text: expect.stringContaining('Out of Memory Error') });
    const count = await runInSqlLab(quarry, editor, databaseId, 'select count(*) as n from marts.orders_enriched');
    expect(count.json.data).toEqual([{ n: 240 }]);
  });

  it('reports a lake readers cannot read as critical, and healthy again once it is whole', async () => {
    await quarry.jobsIdle();
    expect((await health()).critical_issues).not.toContainEqual(expect.stringMatching(LAKE_UNREADABLE));
    const aside = `${catalog}.aside`;
    copyFileSync(catalog, aside);
    writeFileSync(catalog, 'a\njunk\n');
    try {
      const broken = await health();
      expect(broken.status).toBe('critical');
      expect(broken.critical_issues).toContainEqual(expect.stringMatching(LAKE_UNREADABLE));
    } finally {
      copyFileSync(aside, catalog);
    }
    expect((await health()).critical_issues).not.toContainEqual(expect.stringMatching(LAKE_UNREADABLE));
    const count = await runInSqlLab(quarry, editor, databaseId, 'select count(*) as n from marts.orders_enriched');
    expect(count.json.data).toEqual([{ n: 240 }]);
  });
});
