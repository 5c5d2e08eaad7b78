// `quarry build` of three models (the staging view Quarry writes over a 5M-row CSV it synced, and two marts tables over
// it) as a new command-line process, first with no service running, then queued in the running service with an API
// key, beside the engine Dango runs: plain dbt-duckdb's `dbt build` with four threads on a DuckDB file holding the same
// raw table and the same models and not_null tests, each a new process, interleaved.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { initProject } from '../src/cli/init.ts';
import { pythonExecutable } from '../src/python/index.ts';
import { createApiKey, QUARRY_BIN, spawnQuarry } from '../test/support/quarry-process.ts';
import type { LoadBenchResult } from './load.ts';
import { median, spread, timed } from './measure.ts';

const ROWS = Number(process.env.QUARRY_BENCH_MODELS_ROWS ?? 5_000_000);
const ROUNDS = Number(process.env.QUARRY_BENCH_MODELS_ROUNDS ?? 3);
const COLUMNS = ['id', 'customer_id', 'amount', 'discount', 'region', 'product', 'channel', 'code', 'order_date', 'created_at'];

const MARTS: Readonly<Record<string, string>> = {
  sales_by_region: `select region, channel, order_date, count(*) as orders, sum(amount) as revenue, avg(discount) as avg_discount
from {{ ref('stg_sales__sales') }} group by all`,
  customer_totals: `select customer_id, count(*) as orders, sum(amount) as revenue, min(order_date) as first_order,
  max(order_date) as last_order, count(distinct product) as products
from {{ ref('stg_sales__sales') }} group by all`,
};

const run = promisify(execFile);

/** The CSV both sides load: ten columns of the usual kinds, as in the load benchmark. */
async function writeCsv(file: string): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run(`COPY (SELECT i AS id, i % 1000 AS customer_id, (i % 97) * 1.5 AS amount, (i % 13) * 0.1 AS discount,
      'region_' || (i % 7) AS region, 'product_' || (i % 500) AS product, 'channel_' || (i % 3) AS channel, md5(i::VARCHAR)[:8] AS code,
      DATE '2024-01-01' + (i % 365)::INTEGER AS order_date, TIMESTAMP '2024-01-01' + INTERVAL (i % 100000) SECOND AS created_at
      FROM range(${String(ROWS)}) t(i)) TO '${file}' (HEADER)`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** The dbt project Dango's engine builds: a DuckDB file with the raw table, the staging view and the marts, four threads. */
async function writeBaseline(dir: string, csv: string): Promise<void> {
  const models = path.join(dir, 'models');
  mkdirSync(models, { recursive: true });
  writeFileSync(path.join(dir, 'dbt_project.yml'), 'name: baseline\nversion: "1.0"\nprofile: baseline\nmodel-paths: [models]\n');
  writeFileSync(path.join(dir, 'profiles.yml'), [
    'baseline:', '  target: dev', '  outputs:', '    dev:', '      type: duckdb', `      path: ${path.join(dir, 'sales.duckdb')}`, '      threads: 4', '',
  ].join('\n'));
  writeFileSync(path.join(models, 'sources.yml'), [
    'version: 2', 'sources:', '  - name: sales', '    schema: raw_sales', '    tables:', '      - name: sales',
    'models:', '  - name: stg_sales__sales', '    columns:', ...COLUMNS.map((column) => `      - {name: ${column}, data_tests: [not_null]}`), '',
  ].join('\n'));
  writeFileSync(path.join(models, 'stg_sales__sales.sql'), "{{ config(materialized='view') }}\nselect * from {{ source('sales', 'sales') }}\n");
  for (const [name, sql] of Object.entries(MARTS)) writeFileSync(path.join(models, `${name}.sql`), `{{ config(materialized='table') }}\n${sql}\n`);
  const instance = await DuckDBInstance.create(path.join(dir, 'sales.duckdb'));
  const connection = await instance.connect();
  try {
    await connection.run(`CREATE SCHEMA raw_sales; CREATE TABLE raw_sales.sales AS SELECT * FROM read_csv('${csv}')`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

export async function runModelsBenchmark(): Promise<LoadBenchResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'quarry-bench-models-'));
  try {
    const project = path.join(dir, 'quarry');
    const baseline = path.join(dir, 'baseline');
    const env = { ...process.env, QUARRY_ADMIN_PASSWORD: 'bench-password-1', DBT_SEND_ANONYMOUS_USAGE_STATS: 'false' };
    await initProject(project, { name: 'bench', adminEmail: 'bench@example.com', nonInteractive: true }, env);
    const csv = path.join(project, 'data', 'sales', 'sales.csv');
    mkdirSync(path.dirname(csv), { recursive: true });
    await writeCsv(csv);
    writeFileSync(path.join(project, '.quarry', 'sources.yml'), 'sources:\n  - name: sales\n    type: local_files\n    local_files: { directory: data/sales }\n');
    // The sync writes the staging view and its not_null tests; the marts are the user's.
    await run(QUARRY_BIN, ['sync', 'sales', '--project', project], { env });
    const marts = path.join(project, 'transform', 'models', 'marts');
    mkdirSync(marts, { recursive: true });
    for (const [name, sql] of Object.entries(MARTS)) writeFileSync(path.join(marts, `${name}.sql`), `{{ config(materialized='table') }}\n${sql}\n`);
    await writeBaseline(baseline, csv);

    const dbt = path.join(path.dirname(pythonExecutable('dbt')), 'dbt');
    const dbtBuild = (): Promise<unknown> => run(dbt, ['build', '--project-dir', baseline, '--profiles-dir', baseline], { env, cwd: baseline });
    const quarryBuild = (): Promise<unknown> => run(QUARRY_BIN, ['build', '--project', project], { env });
    // Once each first: the tables exist from then on, as they do for a team's next build.
    await dbtBuild();
    await quarryBuild();
    const cold: number[] = [];
    const quarry: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      cold.push(await timed(dbtBuild));
      quarry.push(await timed(quarryBuild));
    }
    // The same command while the service runs, with an API key: the service's warm dbt builds it.
    const server = await spawnQuarry(project);
    const queued: number[] = [];
    try {
      const key = await createApiKey(server.url, { email: 'bench@example.com', password: env.QUARRY_ADMIN_PASSWORD });
      const queuedBuild = (): Promise<unknown> => run(QUARRY_BIN, ['build', '--project', project], { env: { ...env, QUARRY_API_KEY: key } });
      await queuedBuild(); // its dbt worker starts at its first run
      for (let round = 0; round < ROUNDS; round++) {
        cold.push(await timed(dbtBuild));
        queued.push(await timed(queuedBuild));
      }
    } finally {
      server.child.kill('SIGTERM');
      await once(server.child, 'exit');
    }
    const base = median(cold);
    const rounds = `median of ${String(ROUNDS)}`;
    return {
      benchmark: 'models',
      baseline: { name: `dbt build, 4 threads on a DuckDB file: 3 models over ${String(ROWS / 1e6)}M rows, 10 tests, new process, median of ${String(cold.length)} (${spread(cold)}) (baseline)`, seconds: base },
      cases: [
        { figure: { id: 'models.build', name: `quarry build of the same over the lake, new process, no service running, ${rounds} (${spread(quarry)})`, seconds: median(quarry) }, ratio: median(quarry) / base },
        {
          figure: { id: 'models.queued', name: `quarry build with QUARRY_API_KEY, queued in the running service's warm dbt, new process, ${rounds} (${spread(queued)})`, seconds: median(queued) },
          ratio: median(queued) / base,
        },
      ],
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
