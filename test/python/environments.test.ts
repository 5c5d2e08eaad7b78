import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonExecutable } from '../../src/python/index.ts';
import { queryDuckDb } from '../support/duckdb-query.ts';
import { startQuarry } from '../support/quarry.ts';

const run = promisify(execFile);


async function pythonQuery(file: string, sql: string): Promise<unknown> {
  const script = 'import duckdb, json, sys\nc = duckdb.connect(sys.argv[1])\nprint(json.dumps(c.execute(sys.argv[2]).fetchall(), default=str))\nc.close()';
  const { stdout } = await run(pythonExecutable('dbt'), ['-c', script, file, sql]);
  return JSON.parse(stdout);
}

describe('the dbt Python environment', () => {
  let dir: string;
  beforeAll(async () => { dir = await mkdtemp(path.join(tmpdir(), 'quarry-python-')); });
  afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

  it('runs the same DuckDB version as @duckdb/node-api', async () => {
    const [node] = await queryDuckDb(':memory:', 'SELECT version() AS v');
    expect(await pythonQuery(':memory:', 'SELECT version()')).toEqual([[node?.v]]);
  });

  it('opens a warehouse written by Node, and Node opens one written by Python', async () => {
    const fromNode = path.join(dir, 'from-node.duckdb');
    await queryDuckDb(fromNode, "CREATE TABLE t AS SELECT i AS id, 'n' || i AS name, DATE '2026-01-01' + i::INTEGER AS day, [i, i + 1] AS pair FROM range(1000) r(i)");
    expect(await pythonQuery(fromNode, 'SELECT count(*), max(name), max(day), max(pair[2]) FROM t')).toEqual([[1000, 'n999', '2028-09-26', 1000]]);

    const fromPython = path.join(dir, 'from-python.duckdb');
    await pythonQuery(fromPython, "CREATE TABLE t AS SELECT i AS id, {'a': i} AS s, TIMESTAMP '2026-01-01' + to_seconds(i) AS ts FROM range(500) r(i)");
    expect(await queryDuckDb(fromPython, 'SELECT count(*)::INTEGER AS n, max(s.a)::INTEGER AS a, max(ts)::VARCHAR AS ts FROM t'))
      .toEqual([{ n: 500, a: 499, ts: '2026-01-01 00:08:19' }]);
  });
});

describe('a missing or broken dbt environment', () => {
  it('names bin/setup in a 503 for transformations while the rest of the platform keeps working', async () => {
    const quarry = await startQuarry({ env: { QUARRY_PYTHON_ENVS_DIR: '/nonexistent/quarry-venvs' }, transform: true, docsServer: true });
    try {
      const runResponse = await quarry.request('POST', '/api/transform/models/anything/run', { as: 'editor' });
      expect(runResponse.status).toBe(503);
      expect(runResponse.json).toEqual({
        detail: expect.stringMatching(/^The dbt Python environment is not installed; run \/\S+\/bin\/setup to repair it$/), code: 'python_env_unavailable',
      });
      expect((await quarry.request('GET', '/api/transform/models', { as: 'viewer' })).json).toEqual({ models: [] });
      expect((await quarry.request('GET', '/api/sources', { as: 'viewer' })).status).toBe(200);
      expect((await quarry.request('GET', '/manifest.json', { as: 'viewer' })).json.code).toBe('upstream_unavailable');
    } finally {
      await quarry.close();
    }
  });

  it('reports the interpreter\'s own complaint when the environment cannot load dbt', async () => {
    const environments = await mkdtemp(path.join(tmpdir(), 'quarry-broken-venvs-'));
    try {
      mkdirSync(path.join(environments, 'dbt', 'bin'), { recursive: true });
      const python = path.join(environments, 'dbt', 'bin', 'python');
      writeFileSync(python, "#!/bin/sh\necho \"ModuleNotFoundError: No module named 'dbt'\" >&2\nexit 1\n");
      chmodSync(python, 0o755);
      const quarry = await startQuarry({ env: { QUARRY_PYTHON_ENVS_DIR: environments } });
      try {
        const response = await quarry.request('POST', '/api/transform/models/anything/run', { as: 'editor' });
        expect(response.status).toBe(503);
        expect(response.json.detail).toMatch(/^The dbt Python environment worker exited \(code 1\): ModuleNotFoundError: No module named 'dbt'; run \S+bin\/setup to repair it$/);
      } finally {
        await quarry.close();
      }
    } finally {
      await rm(environments, { recursive: true, force: true });
    }
  });
});
