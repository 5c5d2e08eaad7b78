// Files in a bucket of a real S3-compatible server (SeaweedFS, on loopback): a filesystem sync of a 5M-row CSV object
// beside DuckDB's own read_csv of the same object into a lake (the baseline), and a re-sync after one of 1,000 small
// objects changed beside the full sync of the 1,000.
import { appendFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { initProject } from '../src/cli/init.ts';
import { closeContext, createContext } from '../src/context.ts';
import { createLogger } from '../src/logger.ts';
import { BucketClient } from '../src/object-storage/index.ts';
import { openLakeForWriting } from '../src/warehouse/lake-connection.ts';
import { extensionFile, objectStorageSecretStatement, quoteLiteral } from '../src/warehouse/index.ts';
import { startObjectStore, type ObjectStore } from '../test/support/object-store.ts';
import type { LoadBenchResult } from './load.ts';
import { lakeIn, median, runDuckDb, settled, spread, syncAndWait, timed, writeWideCsv } from './measure.ts';

const ROWS = Number(process.env.QUARRY_BENCH_LOAD_ROWS ?? 5_000_000);
const ROUNDS = Number(process.env.QUARRY_BENCH_LOAD_ROUNDS ?? 3);
const SMALL_OBJECTS = 1000;
const RESYNCS = Number(process.env.QUARRY_BENCH_RESYNCS ?? 5);
const BUCKET = 'bench';



/** What DuckDB needs to reach the bench's bucket: the access as Quarry builds it from a source's section. */
function accessOf(store: ObjectStore): { endpoint: string; region: string; urlStyle: 'path'; useSsl: false; keyId: string; secret: string } {
  return { endpoint: store.endpoint, region: store.region, urlStyle: 'path', useSsl: false, keyId: store.accessKeyId, secret: store.secretAccessKey };
}

/** DuckDB alone: the object read with read_csv into a new lake made as Quarry makes one. */
async function duckDbFromBucket(dir: string, store: ObjectStore, url: string): Promise<number> {
  const lakeDir = path.join(dir, `baseline-lake-${String(Date.now())}`);
  const lake = await openLakeForWriting(lakeIn(lakeDir));
  try {
    await lake.connection.run(`LOAD ${quoteLiteral(extensionFile('httpfs'))}`);
    await lake.connection.run(objectStorageSecretStatement('bench_bucket', `s3://${BUCKET}`, accessOf(store)));
    return await timed(() => lake.connection.run(`CREATE TABLE t AS SELECT * FROM read_csv(${quoteLiteral(url)})`));
  } finally {
    await lake.close();
    await rm(lakeDir, { recursive: true, force: true });
  }
}

export async function runObjectStorageBenchmark(): Promise<LoadBenchResult[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'quarry-bench-objects-'));
  const store = await startObjectStore();
  try {
    await store.createBucket(BUCKET);
    const bigCsv = path.join(dir, 'big.csv');
    await writeWideCsv(bigCsv, ROWS);
    const client = new BucketClient(`s3://${BUCKET}`, accessOf(store));
    try {
      await client.upload(bigCsv, 'big/big.csv');
    } finally {
      client.close();
    }
    // 1,000 small objects written by DuckDB straight into the bucket, one per partition.
    await runDuckDb(':memory:', `LOAD ${quoteLiteral(extensionFile('httpfs'))};
      ${objectStorageSecretStatement('bench_bucket', `s3://${BUCKET}`, accessOf(store))};
      COPY (SELECT i AS id, i % 1000 AS customer_id, random() * 1000 AS amount, 'name-' || i AS name, i // 50 AS file_no
        FROM range(${String(SMALL_OBJECTS * 50)}) t(i)) TO 's3://${BUCKET}/small' (FORMAT csv, HEADER, PARTITION_BY (file_no), FILENAME_PATTERN 'part_{i}')`);

    const env = { QUARRY_ADMIN_PASSWORD: 'bench-password-1', BENCH_KEY_ID: store.accessKeyId, BENCH_SECRET: store.secretAccessKey };
    await initProject(dir, { name: 'bench-objects', adminEmail: 'bench@example.com', nonInteractive: true }, env);
    const bucketFields = `endpoint: "${store.endpoint}", url_style: path, use_ssl: false, access_key_id_env: BENCH_KEY_ID, secret_access_key_env: BENCH_SECRET`;
    writeFileSync(path.join(dir, '.quarry', 'sources.yml'), [
      'sources:',
      '  - name: big', '    type: filesystem', `    filesystem: { bucket_url: "s3://${BUCKET}/big", file_pattern: "*.csv", ${bucketFields} }`,
      '  - name: small', '    type: filesystem', `    filesystem: { bucket_url: "s3://${BUCKET}/small", file_pattern: "**/*.csv", ${bucketFields} }`,
      '',
    ].join('\n'));
    // The server is on this machine, which sources reach only where project.yml allows.
    appendFileSync(path.join(dir, '.quarry', 'project.yml'), 'network:\n  allow_private: [127.0.0.1]\n');

    const ctx = await createContext({ projectDir: dir, env, log: createLogger({ level: 'silent' }) });
    try {
      const loads: { baseline: number[]; sync: number[] } = { baseline: [], sync: [] };
      for (let round = 0; round < ROUNDS; round++) {
        const alone = async (): Promise<void> => { loads.baseline.push(await duckDbFromBucket(dir, store, `s3://${BUCKET}/big/big.csv`)); };
        const sync = async (): Promise<void> => {
          loads.sync.push(await timed(() => syncAndWait(ctx, 'big', round > 0)));
          await settled(ctx);
        };
        for (const load of round % 2 === 0 ? [alone, sync] : [sync, alone]) await load();
      }
      const full = await timed(() => syncAndWait(ctx, 'small', true));
      await settled(ctx);
      const resyncs: number[] = [];
      for (let round = 0; round < RESYNCS; round++) {
        await runDuckDb(':memory:', `LOAD ${quoteLiteral(extensionFile('httpfs'))};
          ${objectStorageSecretStatement('bench_bucket', `s3://${BUCKET}`, accessOf(store))};
          COPY (SELECT ${String(round)} AS id, 2 AS customer_id, 3.5 AS amount, 'changed' AS name) TO 's3://${BUCKET}/small/file_no=${String(round)}/part_0.csv' (FORMAT csv, HEADER)`);
        resyncs.push(await timed(() => syncAndWait(ctx, 'small')));
        await settled(ctx);
      }
      // The floor under any re-sync: listing the 1,000 keys, the job, the writer's turn and its commit, with nothing to load.
      const unchanged: number[] = [];
      for (let round = 0; round < RESYNCS; round++) {
        unchanged.push(await timed(() => syncAndWait(ctx, 'small')));
        await settled(ctx);
      }
      const lakeSeconds = median(loads.baseline);
      const syncSeconds = median(loads.sync);
      const resync = median(resyncs);
      return [
        {
          benchmark: 'object storage',
          baseline: { name: `DuckDB CREATE TABLE AS read_csv of a ${String(ROWS)}-row CSV object into a new lake, median of ${String(ROUNDS)} (${spread(loads.baseline)}) (baseline)`, seconds: lakeSeconds },
          cases: [{
            figure: { id: 'objects.filesystem', name: `filesystem sync of the same object, median of ${String(ROUNDS)} (${spread(loads.sync)})`, seconds: syncSeconds },
            ratio: syncSeconds / lakeSeconds,
          }],
        },
        {
          benchmark: 'object storage',
          baseline: { name: `full sync of ${String(SMALL_OBJECTS)} small CSV objects (baseline)`, seconds: full },
          cases: [{
            figure: { id: 'objects.incremental', name: `re-sync after 1 object changed, median of ${String(RESYNCS)} (${spread(resyncs)})`, seconds: resync },
            ratio: resync / full,
          }, {
            figure: { name: `for reference: re-sync with nothing changed, median of ${String(RESYNCS)} (${spread(unchanged)})`, seconds: median(unchanged) },
            ratio: median(unchanged) / full,
          }],
        },
      ];
    } finally {
      await closeContext(ctx);
    }
  } finally {
    await store.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
