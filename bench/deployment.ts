// A deployment's throughput: 20 I/O-bound REST sources (a fake API answering each page in 50 ms) synced through
// the web process's API by one worker (the baseline) and by two, side by side, each process with its own project copy,
// sharing the local PostgreSQL (platform store, queue, the lake's catalog) and a SeaweedFS bucket (the lake's data).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dropDeployment, prepareDeployment, restSourcesYaml, signInAdmin, startWorker, stopProcess, type Child } from '../test/support/deployment.ts';
import { startFakeApi } from '../test/support/fake-api.ts';
import { onPostgres } from '../test/support/local-postgres.ts';
import { startObjectStore } from '../test/support/object-store.ts';
import { freshPostgresStore } from '../test/support/postgres-store.ts';
import { spawnQuarry } from '../test/support/quarry-process.ts';
import type { LoadBenchResult } from './load.ts';
import { median, spread, timed } from './measure.ts';

const SOURCES = Array.from({ length: 20 }, (_, index) => `d${String(index + 1).padStart(2, '0')}`);
const PAGES = 40;
const PAGE_ROWS = 100;
const PAGE_LATENCY_MS = 50;
const ROUNDS = Number(process.env.QUARRY_BENCH_DEPLOYMENT_ROUNDS ?? 3);
/** Jobs each worker runs at once: enough that one worker is not bound by its own slots alone. */
const CONCURRENCY = 4;



export async function runDeploymentBenchmark(): Promise<LoadBenchResult> {
  const base = await mkdtemp(path.join(tmpdir(), 'quarry-bench-deployment-'));
  const dirs = ['web', 'worker-1', 'worker-2'].map((name) => path.join(base, name));
  const platform = freshPostgresStore();
  const lakeSchema = `quarry_lake_${platform.schema.slice(-12)}`;
  const bucket = await startObjectStore();
  const api = await startFakeApi((app) => {
    app.get('/:source/items', async (request) => {
      const { offset = '0', limit = String(PAGE_ROWS) } = request.query as { offset?: string; limit?: string };
      const from = Number(offset);
      const rows = Math.max(0, Math.min(Number(limit), PAGES * PAGE_ROWS - from));
      await new Promise((resolve) => setTimeout(resolve, PAGE_LATENCY_MS));
      return { total: PAGES * PAGE_ROWS, data: Array.from({ length: rows }, (_, index) => ({ id: from + index + 1, name: `row ${String(from + index)}`, amount: index * 1.5 })) };
    });
  });
  const workers: Child[] = [];
  let web: Awaited<ReturnType<typeof spawnQuarry>> | undefined;
  try {
    await bucket.createBucket('lake');
    await prepareDeployment({
      dirs, platform, lakeSchema, bucket, sourcesYaml: restSourcesYaml(api.url, SOURCES, `{type: offset, limit: ${String(PAGE_ROWS)}, total_path: total}`),
    });
    web = await spawnQuarry(dirs[0]!, { args: ['--no-jobs'] });
    const url = web.url;
    const cookie = await signInAdmin(url);
    const unfinished = (): Promise<number> => onPostgres(async (client) =>
      (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${platform.schema}.jobs WHERE status IN ('queued', 'running')`)).rows[0]!.n);
    const syncAll = async (): Promise<void> => {
      for (const name of SOURCES) {
        const response = await fetch(`${url}/api/sources/${name}/sync`, { method: 'POST', headers: { cookie, 'x-requested-with': 'XMLHttpRequest', 'content-type': 'application/json' }, body: '{}' });
        if (response.status !== 200) throw new Error(`sync of ${name} refused: ${String(response.status)} ${await response.text()}`);
      }
      while (await unfinished() > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    };
    const withWorkers = async (count: number): Promise<number> => {
      workers.push(...await Promise.all(dirs.slice(1, 1 + count).map((dir, index) => startWorker(dir, `worker-${String(index + 1)}`, CONCURRENCY))));
      try {
        return await timed(syncAll);
      } finally {
        await Promise.all(workers.splice(0).map(stopProcess));
      }
    };
    const one: number[] = [];
    const two: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const runs = [async () => { one.push(await withWorkers(1)); }, async () => { two.push(await withWorkers(2)); }];
      for (const run of round % 2 === 0 ? runs : runs.reverse()) await run();
    }
    const failed = await onPostgres(async (client) => (await client.query(`SELECT count(*)::int AS n FROM ${platform.schema}.jobs WHERE status <> 'success'`)).rows[0].n as number);
    if (failed > 0) throw new Error(`${String(failed)} sync(s) of the benchmark did not succeed`);
    const baseline = median(one);
    const figure = median(two);
    return {
      benchmark: 'deployment',
      baseline: { name: `one worker syncing ${String(SOURCES.length)} REST sources of ${String(PAGES)} pages at ${String(PAGE_LATENCY_MS)} ms, ${String(CONCURRENCY)} at a time, median of ${String(ROUNDS)} (${spread(one)}) (baseline)`, seconds: baseline },
      cases: [{ figure: { id: 'deployment.two_workers', name: `two workers, the same syncs, median of ${String(ROUNDS)} (${spread(two)})`, seconds: figure }, ratio: figure / baseline }],
    };
  } finally {
    await Promise.all(workers.map(stopProcess));
    if (web !== undefined) await stopProcess(web.child);
    await api.close();
    await bucket.stop();
    await dropDeployment(platform, lakeSchema);
    await rm(base, { recursive: true, force: true });
  }
}
