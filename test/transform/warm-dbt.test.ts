import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonExecutable } from '../../src/python/index.ts';
import { DbtWorker } from '../../src/transform/dbt-worker.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

/**
 * `mark` leaves a table in the in-memory database of dbt's DuckDB instance; the model `probe` records whether it
 * finds it there, so a probe after a mark tells whether the instance was kept between the two invocations.
 */
function writeProject(dir: string): void {
  const transform = path.join(dir, 'transform');
  mkdirSync(path.join(transform, 'models', 'marts'), { recursive: true });
  writeFileSync(path.join(transform, 'macros', 'mark.sql'),
    '{% macro mark() %}{% do run_query("create or replace table memory.main.warm_marker as select 1 as x") %}{% endmacro %}\n');
  writeFileSync(path.join(transform, 'models', 'marts', 'probe.sql'),
    "select count(*) as marked from duckdb_tables() where database_name = 'memory' and table_name = 'warm_marker'\n");
  writeFileSync(path.join(transform, 'models', 'marts', 'twice.sql'), 'select 1 as id union all select 1\n');
  writeFileSync(path.join(transform, 'models', 'marts', '_marts.yml'),
    'version: 2\nmodels:\n  - name: twice\n    columns:\n      - {name: id, data_tests: [unique]}\n');
}

describe('the warm dbt worker', () => {
  let quarry: TestQuarry;
  let worker: DbtWorker;
  const invoke = async (args: string[]): Promise<boolean> => (await worker.invoke(args, () => undefined, AbortSignal.timeout(120_000))).success;
  const keptSinceMark = async (): Promise<boolean> => {
    expect(await invoke(['run', '--select', 'probe'])).toBe(true);
    const answer = await quarry.request('POST', '/api/query', { as: 'viewer', body: { sql: 'SELECT marked FROM marts.probe' } });
    expect(answer.status, answer.text).toBe(200);
    return Number(answer.json.rows[0][0]) === 1;
  };

  beforeAll(async () => {
    quarry = await startQuarry({ transform: true, prepare: writeProject });
    await quarry.ctx.transform.idle();
    const { ctx } = quarry;
    worker = new DbtWorker({
      python: pythonExecutable('dbt', ctx.env.QUARRY_PYTHON_ENVS_DIR), paths: ctx.paths, lake: ctx.lake, baseEnv: ctx.childEnv, log: ctx.log, idleCloseSeconds: 3,
    });
  }, 180_000);
  afterAll(async () => {
    await worker.close();
    await quarry.close();
  });

  it('keeps the lake\'s instance from one invocation to the next', async () => {
    expect(await invoke(['run-operation', 'mark'])).toBe(true);
    expect(await keptSinceMark()).toBe(true);
  }, 180_000);

  it('keeps it after a build whose data test found rows', async () => {
    expect(await invoke(['run-operation', 'mark'])).toBe(true);
    const build = await worker.invoke(['build', '--select', 'twice'], () => undefined, AbortSignal.timeout(120_000));
    expect(build.success).toBe(false);
    expect(build.results.map((result) => result.status).toSorted()).toEqual(['fail', 'success']);
    expect(await keptSinceMark()).toBe(true);
  }, 180_000);

  it('does not keep it after an invocation that failed with an error', async () => {
    expect(await invoke(['run-operation', 'mark'])).toBe(true);
    expect(await invoke(['run-operation', 'no_such_macro'])).toBe(false);
    expect(await keptSinceMark()).toBe(false);
  }, 180_000);

  it('closes it once no invocation has come for a while', async () => {
    expect(await invoke(['run-operation', 'mark'])).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(await keptSinceMark()).toBe(false);
  }, 180_000);
});
