// Connectors: a 200,000-record paginated REST source (1,000 records per page, from a local fake server) beside a
// client that only downloads and parses the same pages, with the sync's load step alone on the same records for
// reference (what a sync that stages before it loads adds to the download at the least); and a 1M-row PostgreSQL
// table through relational_db beside `COPY (SELECT ...) TO STDOUT` of the same table into nowhere. Both as
// records/s and as time ratios.
import { randomBytes } from 'node:crypto';
import { appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { initProject } from '../src/cli/init.ts';
import { closeContext, createContext, type AppContext } from '../src/context.ts';
import { createLogger } from '../src/logger.ts';
import { loadStagedTables } from '../src/sources/load-staged-tables.ts';
import { StagingArea } from '../src/sources/staging-area.ts';
import { openLakeForWriting } from '../src/warehouse/lake-connection.ts';
import { startFakeApi } from '../test/support/fake-api.ts';
import type { LoadBenchResult } from './load.ts';
import { lakeIn, settled, syncAndWait, timed } from './measure.ts';

const REST_RECORDS = Number(process.env.QUARRY_BENCH_REST_RECORDS ?? 200_000);
const PAGE_SIZE = 1000;
/** The rest_api source's `concurrency` (its default when unset): 1 shows the sync without pages fetched ahead. */
const REST_CONCURRENCY = process.env.QUARRY_BENCH_REST_CONCURRENCY;
const PG_ROWS = Number(process.env.QUARRY_BENCH_PG_ROWS ?? 1_000_000);
const PG_URL = process.env.QUARRY_BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

function perSecond(count: number, seconds: number): string {
  return `${Math.round(count / seconds).toLocaleString('en-US')} records/s`;
}

/** A project with one source, `name`, described by its sources.yml lines, opened as a context; `work` runs on it. */
async function withProject<T>(sourceLines: readonly string[], env: Record<string, string>, work: (ctx: AppContext) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'quarry-bench-connectors-'));
  try {
    const projectEnv = { QUARRY_ADMIN_PASSWORD: 'bench-password-1', ...env };
    await initProject(dir, { name: 'bench', adminEmail: 'bench@example.com', nonInteractive: true }, projectEnv);
    writeFileSync(path.join(dir, '.quarry', 'sources.yml'), ['sources:', ...sourceLines, ''].join('\n'));
    // The benchmark's API and database run on this machine, which sources may reach only when allowed.
    appendFileSync(path.join(dir, '.quarry', 'project.yml'), 'network:\n  allow_private: [127.0.0.1, localhost]\n');
    const ctx = await createContext({ projectDir: dir, env: projectEnv, log: createLogger({ level: 'silent' }) });
    try {
      return await work(ctx);
    } finally {
      await closeContext(ctx);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The sync's load step alone: the records staged as the sync stages them, then loaded into an empty lake by the
 * sync's own code in one transaction. It cannot start before the last page is in, since DuckDB's type inference
 * reads every record before the first row is typed, so a sync takes at least the download and this.
 */
async function loadStepAlone(pages: readonly Record<string, unknown>[][]): Promise<number> {
  const dir = await mkdtemp(path.join(tmpdir(), 'quarry-bench-load-step-'));
  try {
    const staging = await StagingArea.create(dir, 0);
    const writer = staging.table({ name: 'customers', disposition: 'replace' });
    for (const records of pages) await writer.write(records);
    const staged = await staging.finish();
    const location = lakeIn(path.join(dir, 'lake'));
    // Made first, as the sync's lake already is.
    await (await openLakeForWriting(location)).close();
    return await timed(async () => {
      const lake = await openLakeForWriting(location);
      try {
        await lake.connection.run('BEGIN');
        await loadStagedTables(lake.connection, 'rest', staged, { fullRefresh: true, now: new Date() });
        await lake.connection.run('COMMIT');
      } finally {
        await lake.close();
      }
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runRestBenchmark(): Promise<LoadBenchResult> {
  const pages = Math.ceil(REST_RECORDS / PAGE_SIZE);
  const page = (number: number) => Array.from({ length: Math.min(PAGE_SIZE, REST_RECORDS - (number - 1) * PAGE_SIZE) }, (_, index) => {
    const id = (number - 1) * PAGE_SIZE + index + 1;
    return { id, name: `customer ${String(id)}`, email: `c${String(id)}@example.com`, amount: id * 0.01, active: id % 2 === 0,
      created_at: new Date(Date.UTC(2026, 0, 1) + id * 1000).toISOString(), tags: ['a', `t${String(id % 7)}`], address: { city: `city ${String(id % 97)}`, zip: String(10000 + (id % 9000)) } };
  });
  // Pages are made once, so the server's cost is the same for both clients.
  const records = Array.from({ length: pages }, (_, index) => page(index + 1));
  const bodies = records.map((data, index) => JSON.stringify({ data, page: index + 1, total_pages: pages }));
  const api = await startFakeApi((app) => {
    app.get('/v1/customers', (request, reply) => {
      const number = Number((request.query as { page?: string }).page ?? 1);
      return reply.type('application/json').send(bodies[number - 1] ?? JSON.stringify({ data: [], page: number, total_pages: pages }));
    });
  });
  try {
    const source = [
      '  - name: rest', '    type: rest_api', '    rest_api:', `      base_url: ${api.url}/v1`, '      auth_type: none',
      ...REST_CONCURRENCY === undefined ? [] : [`      concurrency: ${REST_CONCURRENCY}`], '      endpoints:', '        - path: /customers', '          data_selector: data', '          paginator: { type: page_number, total_path: total_pages }',
    ];
    const download = async (): Promise<void> => {
      for (let number = 1; number <= pages; number++) {
        const response = await fetch(`${api.url}/v1/customers?page=${String(number)}`);
        await response.json();
      }
    };
    return await withProject(source, {}, async (ctx) => {
      // Warm both paths once (connections, page cache, JIT), then measure each beside its baseline.
      await download();
      await syncAndWait(ctx, 'rest', true);
      // The catalog profiles what a sync changed in the background: measured apart, never beside either path.
      await settled(ctx);
      const downloadSeconds = await timed(download);
      const restSeconds = await timed(() => syncAndWait(ctx, 'rest', true));
      await settled(ctx);
      const loadSeconds = await loadStepAlone(records);
      const leastSeconds = downloadSeconds + loadSeconds;
      return {
        benchmark: 'rest',
        baseline: { name: `download and parse ${String(pages)} pages, ${String(REST_RECORDS)} records (baseline, ${perSecond(REST_RECORDS, downloadSeconds)})`, seconds: downloadSeconds },
        cases: [
          { figure: { id: 'rest.rest_api', name: `rest_api sync of the same pages (${perSecond(REST_RECORDS, restSeconds)})`, seconds: restSeconds }, ratio: restSeconds / downloadSeconds },
          {
            figure: { name: `for reference: the download, then the sync's load step alone on the same records (${loadSeconds.toFixed(2)} s): the least a sync takes`, seconds: leastSeconds },
            ratio: leastSeconds / downloadSeconds,
          },
        ],
      };
    });
  } finally {
    await api.close();
  }
}

export async function runPostgresBenchmark(): Promise<LoadBenchResult> {
  const schema = `quarry_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.orders (id bigint PRIMARY KEY, customer text, amount numeric(10,2), paid boolean,
      created_at timestamptz, note text); INSERT INTO ${schema}.orders SELECT i, 'customer ' || (i % 1000), (i % 10000) / 100.0, i % 2 = 0,
      timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second', 'note ' || i FROM generate_series(1, ${String(PG_ROWS)}) i`);
    // The statistics autovacuum would have gathered on a table this size: postgres_scanner splits its read by page count.
    await admin.query(`ANALYZE ${schema}.orders`);
    const source = ['  - name: pg', '    type: relational_db', '    generic_config:', '      credentials_env: BENCH_PG_URL', `      schema: ${schema}`];
    const copyOut = async (): Promise<void> => {
      const sink = new Writable({ write: (_chunk, _encoding, done) => { done(); } });
      await pipeline(admin.query(copyTo(`COPY (SELECT * FROM ${schema}.orders) TO STDOUT WITH (FORMAT csv, HEADER true, FORCE_QUOTE *)`)), sink);
    };
    return await withProject(source, { BENCH_PG_URL: PG_URL }, async (ctx) => {
      // Warm both paths once (connections, page cache, the new lake's catalog), as the rest benchmark does.
      await copyOut();
      await syncAndWait(ctx, 'pg', true);
      await settled(ctx);
      const copySeconds = await timed(copyOut);
      const pgSeconds = await timed(() => syncAndWait(ctx, 'pg', true));
      await settled(ctx);
      return {
        benchmark: 'postgres',
        baseline: { name: `COPY ... TO STDOUT, ${String(PG_ROWS)} rows (baseline, ${perSecond(PG_ROWS, copySeconds)})`, seconds: copySeconds },
        cases: [{ figure: { id: 'postgres.relational_db', name: `relational_db sync of the same table (${perSecond(PG_ROWS, pgSeconds)})`, seconds: pgSeconds }, ratio: pgSeconds / copySeconds }],
      };
    });
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}
