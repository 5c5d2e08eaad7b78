// A deployment's throughput: 20 I/O-bound REST sources (a fake API answering each page in 50 ms, paged by a cursor
// each answer gives, so a sync waits for one page after another, as with most SaaS APIs) synced through the web
// process's API by one worker (the baseline) and by two, side by side, each process with its own project copy,
// sharing the local PostgreSQL (platform store, queue, the lake's catalog) and a SeaweedFS bucket (the lake's data).
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { projectPaths } from '../src/config/index.ts';
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
/**
 * Jobs each worker runs at once: the 20 syncs make whole rounds for one worker (4 of 5) and for two (2 of 10). With 4
 * at a time they make 5 rounds against 3, and two workers could not take less than 0.6 of one's time, however fast.
 */
const CONCURRENCY = 5;

/** Waits for the web process to publish its docs site after `since` (it follows the syncs' new staging models). */
async function docsSiteGeneratedSince(webDir: string, since: number): Promise<void> {
  const manifest = path.join(projectPaths(webDir).runDir, 'transform-docs', 'manifest.json');
  for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
    const modified = await stat(manifest).then((file) => file.mtimeMs, () => 0);
    if (modified > since) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('the web process did not generate its docs site after the first syncs');
}

export async function runDeploymentBenchmark(): Promise<LoadBenchResult> {
  const base = await mkdtemp(path.join(tmpdir(), 'quarry-bench-deployment-'));
  const dirs = ['web', 'worker-1', 'worker-2'].map((name) => path.join(base, name));
  const platform = freshPostgresStore();
  const lakeSchema = `quarry_lake_${platform.schema.slice(-12)}`;
  const bucket = await startObjectStore();
  const api = await startFakeApi((app) => {
    app.get('/:source/items', async (request) => {
      const page = Number((request.query as { cursor?: string }).cursor ?? '0');
      const from = page * PAGE_ROWS;
      await new Promise((resolve) => setTimeout(resolve, PAGE_LATENCY_MS));
      return {
        next_cursor: page + 1 < PAGES ? page + 1 : null,
        data: Array.from({ length: PAGE_ROWS }, (_, index) => ({ id: from + index + 1, name: `row ${String(from + index)}`, amount: index * 1.5 })),
      };
    });
  });
  const workers: Child[] = [];
  let web: Awaited<ReturnType<typeof spawnQuarry>> | undefined;
  try {
    await bucket.createBucket('lake');
    await prepareDeployment({
      dirs, platform, lakeSchema, bucket, sourcesYaml: restSourcesYaml(api.url, SOURCES, '{type: cursor, cursor_path: next_cursor, cursor_param: cursor}'),
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
    const stagingBuilt = (): Promise<number> => onPostgres(async (client) =>
      (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${platform.schema}.jobs WHERE kind = 'run' AND target LIKE 'staging of %' AND status = 'success'`)).rows[0]!.n);
    const withWorkers = async (count: number, work: () => Promise<void>): Promise<number> => {
      workers.push(...await Promise.all(dirs.slice(1, 1 + count).map((dir, index) => startWorker(dir, `worker-${String(index + 1)}`, CONCURRENCY))));
      try {
        return await timed(work);
      } finally {
        await Promise.all(workers.splice(0).map(stopProcess));
      }
    };
    // The first sync of each source makes its tables, the web process writes its staging model and queues the run
    // that builds it, then generates the docs site once they stop: a round of its own, not one of those compared,
    // whose workers stay until the staging runs are done (left queued, they would run in the first timed round).
    const warmedUp = Date.now();
    await withWorkers(2, async () => {
      await syncAll();
      for (const deadline = Date.now() + 180_000; await stagingBuilt() < SOURCES.length || await unfinished() > 0;) {
        if (Date.now() > deadline) throw new Error('the staging models of the first syncs were not built');
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    });
    await docsSiteGeneratedSince(dirs[0]!, warmedUp);
    const one: number[] = [];
    const two: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const runs = [async () => { one.push(await withWorkers(1, syncAll)); }, async () => { two.push(await withWorkers(2, syncAll)); }];
      for (const run of round % 2 === 0 ? runs : runs.reverse()) await run();
    }
    const failed = await onPostgres(async (client) => (await client.query(`SELECT count(*)::int AS n FROM ${platform.schema}.jobs WHERE status <> 'success'`)).rows[0].n as number);
    const modelRuns = await onPostgres(async (client) => (await client.query(`SELECT count(*)::int AS n FROM ${platform.schema}.jobs WHERE kind = 'run'`)).rows[0].n as number);
    // Only the first round's syncs change the staging models: a run in the timed rounds would be timed with them.
    if (modelRuns !== SOURCES.length) throw new Error(`${String(modelRuns)} model run(s), not the ${String(SOURCES.length)} of the first round's staging models`);
    if (failed > 0) throw new Error(`${String(failed)} sync(s) of the benchmark did not succeed`);
    const baseline = median(one);
    const figure = median(two);
    return {
      benchmark: 'deployment',
      baseline: { name: `one worker syncing ${String(SOURCES.length)} REST sources of ${String(PAGES)} pages at ${String(PAGE_LATENCY_MS)} ms one after another, ${String(CONCURRENCY)} at a time, median of ${String(ROUNDS)} (${spread(one)}) (baseline)`, seconds: baseline },
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
