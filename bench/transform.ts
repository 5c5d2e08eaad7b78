// Model runs, `dbt build` with 2 data tests per model, as Quarry does them (a job in the warm dbtRunner worker) over a
// 20-model project, beside a cold `dbt build` CLI process of the same project and selection (the baseline), interleaved:
// `POST .../run?cascade=true` of one model, and `quarry build` of the whole project (target: ratio ≤ 0.3).
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { initProject } from '../src/cli/init.ts';
import { closeContext, createContext, type AppContext } from '../src/context.ts';
import { createLogger } from '../src/logger.ts';
import { pythonExecutable } from '../src/python/index.ts';
import { DUCKDB_EXTENSIONS_DIR, lakeChildEnv, lakeLocation, READER_SANDBOX_PYTHON_PATH, type LakeWriter } from '../src/warehouse/index.ts';
import type { LoadBenchResult } from './load.ts';
import { median, timed } from './measure.ts';

const ROUNDS = Number(process.env.QUARRY_BENCH_TRANSFORM_ROUNDS ?? 5);
const RAW_ROWS = 200_000;
const ROOT = 'stg_events_1';

/** The column each kind of model is keyed by: its two tests are unique and not_null on it. */
const KEYS: Record<string, string> = { stg_events: 'id', daily: 'day', customers: 'customer_id', summary: 'day' };

/** 5 staging views over one raw table and 15 marts tables in three tiers, each with 2 tests: 20 models, 40 tests. */
function writeProject(dir: string): { models: number; selected: number } {
  const staging = path.join(dir, 'transform', 'models', 'staging');
  const marts = path.join(dir, 'transform', 'models', 'marts');
  mkdirSync(staging, { recursive: true });
  mkdirSync(marts, { recursive: true });
  writeFileSync(path.join(staging, '_sources.yml'), 'version: 2\nsources:\n  - name: bench\n    schema: raw_bench\n    tables:\n      - name: events\n');
  for (let view = 1; view <= 5; view++) {
    writeFileSync(path.join(staging, `stg_events_${String(view)}.sql`),
      `select id, customer_id, amount * ${String(view)} as amount, day from {{ source('bench', 'events') }} where id % 5 = ${String(view - 1)}`);
  }
  for (let index = 1; index <= 5; index++) {
    writeFileSync(path.join(marts, `daily_${String(index)}.sql`),
      `select day, count(*) as n, sum(amount) as amount from {{ ref('stg_events_${String(index)}') }} group by day`);
    writeFileSync(path.join(marts, `customers_${String(index)}.sql`),
      `select customer_id, sum(amount) as amount, rank() over (order by sum(amount) desc) as rank from {{ ref('stg_events_${String(index)}') }} group by customer_id`);
  }
  for (let index = 1; index <= 5; index++) {
    const other = (index % 5) + 1;
    writeFileSync(path.join(marts, `summary_${String(index)}.sql`), [
      `select d.day, d.amount, c.top_amount from {{ ref('daily_${String(index)}') }} d`,
      `cross join (select max(amount) as top_amount from {{ ref('customers_${String(index)}') }}) c`,
      `where d.day in (select day from {{ ref('daily_${String(other)}') }})`,
    ].join('\n'));
  }
  const names = Object.keys(KEYS).flatMap((kind) => [1, 2, 3, 4, 5].map((index) => ({ name: `${kind}_${String(index)}`, key: KEYS[kind] ?? 'id' })));
  writeFileSync(path.join(marts, '_tests.yml'), ['version: 2', 'models:', ...names.flatMap(({ name, key }) => [
    `  - name: ${name}`, '    columns:', `      - name: ${key}`, '        data_tests: [unique, not_null]',
  ])].join('\n'));
  // stg_events_1+ : the view, daily_1, customers_1, summary_1 and summary_5 (which reads daily_1)
  return { models: 20, selected: 5 };
}

async function createRawTable(writer: LakeWriter): Promise<void> {
  await writer.write(({ transaction }) => transaction(async (connection) => {
    await connection.run(`CREATE SCHEMA raw_bench; CREATE TABLE raw_bench.events AS
      SELECT i AS id, i % 997 AS customer_id, (i % 1000) / 10.0 AS amount, DATE '2026-01-01' + (i % 365)::INTEGER AS day FROM range(${String(RAW_ROWS)}) r(i)`);
  }), { signal: AbortSignal.timeout(600_000) });
}

/** The job from POST to its last model's outcome event (the docs regeneration that follows is not counted). */
async function warmRun(ctx: AppContext, expected: number): Promise<number> {
  let reported = 0;
  const done = new Promise<void>((resolve, reject) => {
    const unsubscribe = ctx.events.subscribe((event) => {
      if (event.type !== 'transform_run_completed' && event.type !== 'transform_run_failed') return;
      if (event.type === 'transform_run_failed') {
        unsubscribe();
        reject(new Error(`${event.model}: ${event.error}`));
        return;
      }
      reported += 1;
      if (reported === expected) { unsubscribe(); resolve(); }
    });
  });
  const seconds = await timed(async () => {
    await ctx.transform.startRun(ROOT, { cascade: true, requestedBy: 'bench' });
    await done;
  });
  await ctx.transform.idle();
  return seconds;
}


export async function runTransformBenchmark(): Promise<LoadBenchResult[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'quarry-bench-transform-'));
  try {
    const env = { QUARRY_ADMIN_PASSWORD: 'bench-password-1', PATH: process.env.PATH ?? '' };
    await initProject(dir, { name: 'bench', adminEmail: 'bench@example.com', nonInteractive: true }, env);
    const { models, selected } = writeProject(dir);
    const ctx = await createContext({ projectDir: dir, env, log: createLogger({ level: 'silent' }) });
    try {
      await createRawTable(ctx.writer);
      const lake = lakeLocation(ctx.paths);
      const python = pythonExecutable('dbt');
      const dbt = path.join(path.dirname(python), 'dbt');
      const dbtCli = (args: readonly string[]): Promise<unknown> => promisify(execFile)(dbt, args, {
        cwd: ctx.paths.transformDir,
        env: {
          PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, DBT_PROFILES_DIR: ctx.paths.transformDir,
          ...lakeChildEnv(lake), QUARRY_DUCKDB_EXTENSIONS: DUCKDB_EXTENSIONS_DIR,
          PYTHONPATH: [path.join(import.meta.dirname, '..', 'src', 'transform'), READER_SANDBOX_PYTHON_PATH].join(path.delimiter), DBT_SEND_ANONYMOUS_USAGE_STATS: 'false', DBT_VERSION_CHECK: 'false',
        },
      });
      const coldRun = (): Promise<unknown> => dbtCli(['build', '--select', `${ROOT}+`]);
      const coldBuild = (): Promise<unknown> => dbtCli(['build']);
      const warmBuild = (): Promise<unknown> => ctx.transform.buildAndWait('', { command: 'build', requestedBy: 'bench', onNode: () => undefined });
      await dbtCli(['build']); // every model once, so the selected ones find their other inputs
      await warmRun(ctx, selected); // starts the worker
      const warm: number[] = [];
      const cold: number[] = [];
      const warmAll: number[] = [];
      const coldAll: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        warm.push(await warmRun(ctx, selected));
        cold.push(await timed(coldRun));
        warmAll.push(await timed(warmBuild));
        await ctx.transform.idle(); // the docs regeneration after it, not counted, and never beside a cold build
        coldAll.push(await timed(coldBuild));
      }
      const baseline = median(cold);
      const figure = median(warm);
      return [{
        benchmark: 'transform',
        baseline: { name: `cold dbt build --select ${ROOT}+ (${String(selected)} of ${String(models)} models, 2 tests each), new process (baseline)`, seconds: baseline },
        cases: [{ figure: { name: `quarry run ${ROOT} with cascade: dbt build in the warm dbtRunner worker, median of ${String(ROUNDS)}`, seconds: figure }, ratio: figure / baseline }],
      }, {
        benchmark: 'transform-build',
        baseline: { name: `cold dbt build of all ${String(models)} models and ${String(models * 2)} tests, new process (baseline)`, seconds: median(coldAll) },
        cases: [{
          figure: { id: 'transform.build', name: `quarry build of the same (warm dbtRunner worker), median of ${String(ROUNDS)}`, seconds: median(warmAll) },
          ratio: median(warmAll) / median(coldAll),
        }],
      }];
    } finally {
      await closeContext(ctx);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
