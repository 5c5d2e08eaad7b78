// POST /api/query of an aggregate over 1M rows, beside the same query in DuckDB in-process on an open connection
// with the reader's one thread (the baseline): the medians of runs taken in turns as a ratio (target ≤ 1.2), and the
// p99 under 20 concurrent clients; and one client's p99 while a local_files sync of a 5M-row CSV runs, beside
// its p99 idle (target ≤ 1.5).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import autocannon from 'autocannon';
import { lakeLocation, openSandboxedReader } from '../src/warehouse/index.ts';
import { startBenchServer } from './bench-server.ts';
import { median, percentile, type ReportedBenchResult, runDuckDb, settled, syncAndWait, writeWideCsv } from './measure.ts';

const ROWS = 1_000_000;
const RUNS = Number(process.env.QUARRY_BENCH_QUERY_RUNS ?? 30);
const CONCURRENT_CLIENTS = 20;
const DURATION_SECONDS = Number(process.env.QUARRY_BENCH_SECONDS ?? 10);
const SYNC_ROWS = Number(process.env.QUARRY_BENCH_LOAD_ROWS ?? 5_000_000);
/** Queries one client sends idle, for the p99 the during-sync figure is compared with. */
const IDLE_QUERIES = 200;
const SQL = 'SELECT category, count(*) AS n, sum(amount) AS total, avg(amount) AS mean FROM raw_events.events GROUP BY category ORDER BY category';


async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/** Median times of `a` and `b`, run in turns so that both see the same load from whatever else the machine runs. */
async function interleavedMedians(a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number, number]> {
  await a(); // warm the page cache and the connections
  await b();
  const times: [number[], number[]] = [[], []];
  for (let index = 0; index < RUNS; index++) {
    times[0].push(await timed(a));
    times[1].push(await timed(b));
  }
  return [median(times[0]), median(times[1])];
}

async function writeEvents(dir: string): Promise<void> {
  const data = path.join(dir, 'data', 'events');
  await mkdir(data, { recursive: true });
  // Written by DuckDB: a million strings built here would be garbage the server's process collects mid-measurement.
  await runDuckDb(':memory:', `COPY (SELECT i AS id, 'c' || (i % 50) AS category, (i * 7919) % 10000 / 100 AS amount FROM range(${String(ROWS)}) t(i))
    TO '${path.join(data, 'events.csv')}' (HEADER)`);
  await mkdir(path.join(dir, 'data', 'big'));
  await writeWideCsv(path.join(dir, 'data', 'big', 'big.csv'), SYNC_ROWS);
  await writeFile(path.join(dir, '.quarry', 'sources.yml'), [
    'sources:',
    '  - name: events', '    type: local_files', '    local_files: { directory: data/events }',
    '  - name: big', '    type: local_files', '    local_files: { directory: data/big }',
    '',
  ].join('\n'));
}

/** Milliseconds of each query one client sends in turn: `count` of them, or until `until` settles. */
async function oneClientQueries(query: () => Promise<unknown>, until: number | Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  let settled = false;
  if (typeof until !== 'number') void until.finally(() => { settled = true; });
  while (typeof until === 'number' ? times.length < until : !settled) times.push(await timed(query));
  if (typeof until !== 'number') await until;
  return times;
}

export async function runQueryBenchmark(): Promise<ReportedBenchResult> {
  const server = await startBenchServer(writeEvents);
  try {
    await syncAndWait(server.ctx, 'events');
    await settled(server.ctx);
    // DuckDB in-process on the same lake, as a reader opens it (the API's own overhead is the difference).
    const reader = await openSandboxedReader(lakeLocation(server.ctx.paths), { threads: 1, memoryLimit: '1GB' });
    const { connection } = reader;
    const headers = { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ sql: SQL });
    const apiQuery = async (): Promise<void> => {
      const response = await fetch(`${server.base}/api/query`, { method: 'POST', headers, body });
      if (!response.ok) throw new Error(`POST /api/query answered ${String(response.status)}: ${await response.text()}`);
      await response.json();
    };
    const [inProcessMs, apiMs] = await interleavedMedians(() => connection.runAndReadAll(SQL), apiQuery);
    reader.close();
    const loaded = await autocannon({ url: `${server.base}/api/query`, method: 'POST', headers, body, connections: CONCURRENT_CLIENTS, duration: DURATION_SECONDS });
    if (loaded.non2xx > 0) throw new Error(`${String(loaded.non2xx)} queries failed under load`);
    const idle = await oneClientQueries(apiQuery, IDLE_QUERIES);
    const duringSync = await oneClientQueries(apiQuery, syncAndWait(server.ctx, 'big'));
    const idleP99 = percentile(idle, 0.99);
    const syncP99 = percentile(duringSync, 0.99);
    return {
      benchmark: 'query',
      rows: [
        { name: `DuckDB in-process, open connection, 1 thread (baseline): ${SQL.slice(0, 40)}… over ${ROWS.toLocaleString()} rows`, value: `median ${inProcessMs.toFixed(1)} ms`, ratio: null, ratioText: '1.00 (baseline)' },
        { id: 'query.api', name: 'POST /api/query, one client', value: `median ${apiMs.toFixed(1)} ms`, ratio: apiMs / inProcessMs, ratioText: (apiMs / inProcessMs).toFixed(2) },
        {
          name: `POST /api/query, ${String(CONCURRENT_CLIENTS)} concurrent clients`,
          value: `${String(Math.round(loaded.requests.average))} req/s, p50 ${String(loaded.latency.p50)} ms, p99 ${String(loaded.latency.p99)} ms`,
          ratio: loaded.latency.p99 / inProcessMs,
          ratioText: `${(loaded.latency.p99 / inProcessMs).toFixed(1)} (p99)`,
        },
        { name: `POST /api/query, one client, ${String(IDLE_QUERIES)} queries idle (baseline)`, value: `p99 ${idleP99.toFixed(1)} ms, median ${percentile(idle, 0.5).toFixed(1)} ms`, ratio: null, ratioText: '1.00 (baseline)' },
        {
          id: 'query.api_during_sync', name: `the same while a local_files sync of ${SYNC_ROWS.toLocaleString()} rows runs (${String(duringSync.length)} queries)`,
          value: `p99 ${syncP99.toFixed(1)} ms, median ${percentile(duringSync, 0.5).toFixed(1)} ms`, ratio: syncP99 / idleP99, ratioText: `${(syncP99 / idleP99).toFixed(2)} (p99)`,
        },
      ],
    };
  } finally {
    await server.close();
  }
}
