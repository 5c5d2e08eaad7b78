import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonExecutable } from '../../src/python/index.ts';
import { extensionFile, LAKE_EXTENSIONS, lakeLocation, READER_SANDBOX_PYTHON_PATH } from '../../src/warehouse/index.ts';
import { listAsSeenBy, touchAsSeenBy } from '../support/mount-namespace.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

// A viewer may read the warehouse and compute on what it reads; no SQL of theirs may change the readers, the lake or
// a file, nor leave the service unable to answer the next query.

const SOURCES = `sources:
  - name: orders
    type: local_files
    local_files:
      directory: data/orders
      file_pattern: "*.csv"
`;

interface DuckDBFunction {
  readonly name: string;
  readonly type: string;
  readonly parameterTypes: readonly string[];
}

/** Every function, macro and table function a reader's DuckDB has, with the parameters of its shortest overload. */
async function listDuckDBFunctions(): Promise<DuckDBFunction[]> {
  const instance = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
  const connection = await instance.connect();
  try {
    for (const name of LAKE_EXTENSIONS) await connection.run(`LOAD '${extensionFile(name)}'`);
    const reader = await connection.runAndReadAll(`SELECT function_name, function_type, arg_min(parameter_types, len(parameter_types))::VARCHAR[]
      FROM duckdb_functions() GROUP BY ALL ORDER BY ALL`);
    return (reader.getRowsJson() as [string, string, (string | null)[] | null][]).map(([name, type, parameterTypes]) => ({
      // A macro's parameters have no type.
      name, type, parameterTypes: (parameterTypes ?? []).map((parameter) => parameter ?? 'ANY'),
    }));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** A literal of `type`, small enough for any function; text is a path in `folder`, so a function that writes one writes there. */
function sampleOf(type: string, folder: string): string {
  if (type.endsWith('[]')) return `[${sampleOf(type.slice(0, -2), folder)}]`;
  if (/INT|DECIMAL|DOUBLE|FLOAT|NUMERIC|ANY/.test(type)) return '1';
  if (type === 'BOOLEAN') return 'true';
  if (type.startsWith('TIMESTAMP')) return "TIMESTAMP '2024-01-02 03:04:05'";
  if (type === 'DATE') return "DATE '2024-01-02'";
  if (type === 'INTERVAL') return "INTERVAL '1 day'";
  if (type === 'BLOB') return "'\\x01'::BLOB";
  if (type === 'JSON') return `'{"a": 1}'::JSON`;
  return `'${path.join(folder, 'x')}'`;
}

function callOf(fn: DuckDBFunction, folder: string): string {
  const quoted = `"${fn.name.replaceAll('"', '""')}"`;
  const call = `${quoted}(${fn.parameterTypes.map((type) => sampleOf(type, folder)).join(', ')})`;
  if (fn.type === 'pragma') return `PRAGMA ${quoted}`;
  if (fn.type.startsWith('table')) return `SELECT * FROM ${call} LIMIT 3`;
  return `SELECT ${call} AS value`;
}

describe('the functions a viewer may call on the warehouse', () => {
  let quarry: TestQuarry;
  let dataPath: string;
  let folder: string;
  let criticalBefore: string[];

  const query = (sql: string) => quarry.request('POST', '/api/query', { as: 'viewer', body: { sql } });
  const criticalIssues = async (): Promise<string[]> => (await quarry.request('GET', '/api/health/platform', { as: 'viewer' })).json.critical_issues;
  const lakeFiles = (): string[] => readdirSync(dataPath, { recursive: true, encoding: 'utf8' }).sort();
  const expectStillAnswering = async (): Promise<void> => {
    expect((await query('SELECT 1 AS one')).json).toMatchObject({ rows: [[1]] });
    expect((await query('SELECT count(*) AS n FROM raw_orders.orders')).json).toMatchObject({ rows: [['4']] });
    expect(await criticalIssues()).toEqual(criticalBefore);
  };

  beforeAll(async () => {
    quarry = await startQuarry({ sourcesYaml: SOURCES, projectConfig: { limits: { query_seconds: 60 } } });
    const orders = path.join(quarry.dir, 'data', 'orders');
    mkdirSync(orders, { recursive: true });
    // Two syncs, two data files: what ducklake_merge_adjacent_files would merge.
    writeFileSync(path.join(orders, 'a.csv'), 'id,amount\n1,10\n2,20\n');
    await syncAndWait(quarry, 'orders');
    writeFileSync(path.join(orders, 'b.csv'), 'id,amount\n3,30\n4,40\n');
    await syncAndWait(quarry, 'orders');
    ({ dataPath } = lakeLocation(quarry.ctx.paths));
    folder = mkdtempSync(path.join(tmpdir(), 'quarry-fuzz-'));
    criticalBefore = await criticalIssues();
  }, 60_000);
  afterAll(async () => {
    await quarry.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it.each([
    ["SELECT * FROM enable_logging(storage => 'file', storage_path => '/tmp/quarry-reader-log')", 'enable_logging'],
    ['SELECT * FROM enable_profiling()', 'enable_profiling'],
    ["SELECT * FROM ducklake_merge_adjacent_files('warehouse')", 'ducklake_merge_adjacent_files'],
    ["SELECT * FROM warehouse.main.ducklake_expire_snapshots('warehouse', older_than => now())", 'ducklake_expire_snapshots'],
    ["SELECT current_setting('allowed_directories') AS folders", 'current_setting'],
  ])('refuses %s, changing nothing, and answers the next query', async (sql, name) => {
    const before = lakeFiles();
    const response = await query(sql);
    expect({ status: response.status, body: response.json }).toEqual({
      status: 400, body: { code: 'query_not_allowed', detail: expect.stringMatching(new RegExp(`^The function ${name} is not allowed here: `)) },
    });
    expect(lakeFiles()).toEqual(before);
    await expectStillAnswering();
  });

  it.each([
    ["SELECT length(repeat('x', 3000000000)) AS n", 'repeat would make 3000000000 bytes'],
    ["SELECT lpad('x', 300000000, '-') AS n", 'lpad would make 300000000 characters'],
    ['SELECT len(range(300000000)) AS n', 'range would make a list of 300000000 elements'],
    ["SELECT len(generate_series(TIMESTAMP '1020-01-01', TIMESTAMP '2020-01-01', INTERVAL 1 SECOND)) AS n", 'generate_series would make a list of 31556995200 elements'],
    ['SELECT len(list_resize([1], 300000000)) AS n', 'list_resize would make a list of 300000000 elements'],
    ["SELECT length(printf('%900000000d', 1)) AS n", "printf's format asks for a width or precision of a million characters or more, or one a value gives"],
    ["SELECT length(format('{:>{}}', 'x', 900000000)) AS n", "format's pattern asks for a width or precision of a million characters or more, or one a value gives"],
  ])('refuses %s before DuckDB builds the value outside its memory limit, and answers the next query', async (sql, what) => {
    const response = await query(sql);
    expect({ status: response.status, body: response.json }).toEqual({
      status: 400, body: { code: 'query_failed', detail: `Invalid Input Error: A value of more than 64 MB is not built here: ${what}` },
    });
    await expectStillAnswering();
  });

  it('runs a query that builds many large values at once in a process of its own, which runs out of memory alone', async () => {
    const before = process.memoryUsage().rss;
    // 400 values of 64 MB in one chunk of rows: 26 GB, all outside DuckDB's memory limit, had it been allowed to.
    const response = await query("SELECT max(length(repeat('x', 67000000 + i::INT))) AS n FROM range(400) t(i)");
    expect({ status: response.status, body: response.json }).toEqual({
      status: 400, body: { code: 'query_failed', detail: expect.stringMatching(/^Out of Memory Error: .*\(a query may use 4 GB\): select fewer or smaller values$/) },
    });
    // The service itself (this test's process) never held those values.
    expect(process.memoryUsage().rss - before).toBeLessThan(512 * 1024 * 1024);
    await expectStillAnswering();
  });

  it('starts the query process again when it was ended, and answers the next query', async () => {
    await expectStillAnswering();
    const { stdout } = await promisify(execFile)('pgrep', ['-P', String(process.pid), '-f', 'query-process-child']);
    for (const pid of stdout.trim().split('\n')) process.kill(Number(pid), 'SIGKILL');
    await expectStillAnswering();
  });

  it('gives the query process the lake\'s data folder read-only, as the service writes it', async () => {
    await expectStillAnswering();
    const { stdout } = await promisify(execFile)('pgrep', ['-P', String(process.pid), '-f', 'query-process-child']);
    const [pid = ''] = stdout.trim().split('\n');
    expect(await touchAsSeenBy(pid, path.join(dataPath, 'planted.parquet'))).toMatch(/Read-only file system/);
    expect(await listAsSeenBy(pid, dataPath)).toEqual(readdirSync(dataPath).sort());
    expect(readdirSync(dataPath)).not.toContain('planted.parquet');
  });

  it('answers the guarded functions as DuckDB does below the limit, nested ones too', async () => {
    const nested = `${'repeat('.repeat(40)}'ab'${', 1)'.repeat(40)}`;
    const sql = `SELECT repeat('ab', 2) AS r, range(1, 10, 4) AS n, range(DATE '2024-01-01', DATE '2024-03-01', INTERVAL 1 MONTH) AS months,
      lpad('7', 3, '0') AS padded, list_resize([1], 2, 0) AS resized, printf('%5.1f|%s', 2.25, 'x') AS printed, format('{:>4}', 'y') AS formatted,
      ${nested} AS nested`;
    expect((await query(sql)).json).toMatchObject({
      rows: [['abab', ['1', '5', '9'], ['2024-01-01 00:00:00', '2024-02-01 00:00:00'], '007', [1, 0], '  2.2|x', '   y', 'ab']],
    });
  });

  it('answers the SQL a dashboard\'s charts send', async () => {
    const sql = `SELECT date_trunc('month', TIMESTAMP '2024-01-02') AS month, strftime(DATE '2024-01-02', '%Y') AS year,
      count(*) AS n, sum(amount) AS total, avg(amount) AS mean, coalesce(NULL, 'none') AS fallback,
      CASE WHEN amount > 15 THEN 'big' ELSE 'small' END AS size, CAST(id AS VARCHAR) AS label, id::DOUBLE AS ratio,
      'order' LIKE 'ord%' AS liked, regexp_replace('a-b', '-', '+') AS replaced, regexp_matches('abc', 'b') AS matched
      FROM raw_orders.orders GROUP BY ALL ORDER BY label LIMIT 1`;
    expect((await query(sql)).json).toMatchObject({ rows: [['2024-01-01 00:00:00', '2024', '1', '10', 10, 'none', 'small', '1', 1, true, 'a+b', true]] });
  });

  it('keeps answering, and writes nothing, whatever function DuckDB has a viewer calls', async () => {
    const functions = await listDuckDBFunctions();
    const before = { lake: lakeFiles(), project: readdirSync(quarry.dir).sort(), cwd: readdirSync(process.cwd()).sort() };
    const unexpected: { sql: string; status: number; body: unknown }[] = [];
    const BATCH = 100;
    const AT_ONCE = 8;
    for (let start = 0; start < functions.length; start += BATCH) {
      const batch = functions.slice(start, start + BATCH);
      for (let at = 0; at < batch.length; at += AT_ONCE) {
        await Promise.all(batch.slice(at, at + AT_ONCE).map(async (fn) => {
          const sql = callOf(fn, folder);
          const response = await query(sql);
          // Errors are fine (bad arguments, refused functions), as long as they are the caller's.
          if (response.status !== 200 && response.status !== 400) unexpected.push({ sql, status: response.status, body: response.json });
        }));
      }
      await expectStillAnswering();
    }
    expect(unexpected).toEqual([]);
    expect(readdirSync(folder)).toEqual([]);
    expect({ lake: lakeFiles(), project: readdirSync(quarry.dir).sort(), cwd: readdirSync(process.cwd()).sort() }).toEqual(before);
  }, 120_000);

  it('refuses, in the dashboard tool\'s check, what the service refuses and passes what charts send', async () => {
    const python = pythonExecutable('superset', quarry.ctx.env.QUARRY_PYTHON_ENVS_DIR);
    const script = [
      'import sys',
      'from reader_sandbox import assert_reads_only, ReaderWriteRefused',
      'for sql in sys.argv[1:]:',
      '    try:',
      '        assert_reads_only(sql)',
      '        print("passed")',
      '    except ReaderWriteRefused as error:',
      '        print(error)',
    ].join('\n');
    const { stdout } = await promisify(execFile)(python, ['-c', script,
      "SELECT date_trunc('day', ts) AS __timestamp, count(*) AS count, sum(x) FROM marts.orders WHERE s ILIKE '%a%' GROUP BY 1 ORDER BY 2 DESC LIMIT 100",
      'SELECT * FROM enable_logging()',
      "SELECT * FROM ducklake_merge_adjacent_files('warehouse')",
      "SELECT system.main.repeat('x', 3)",
      "SELECT system.repeat('x', 3)",
      'SELECT "System".repeat(\'x\', 3)',
    ], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PYTHONPATH: READER_SANDBOX_PYTHON_PATH } });
    expect(stdout.trim().split('\n')).toEqual([
      'passed',
      'the function enable_logging is refused: the warehouse is read-only here',
      'the function ducklake_merge_adjacent_files is refused: the warehouse is read-only here',
      'the function system.main.repeat is refused: the warehouse is read-only here',
      'the function system.repeat is refused: the warehouse is read-only here',
      'the function System.repeat is refused: the warehouse is read-only here',
    ]);
  });
});
