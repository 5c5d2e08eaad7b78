import { CopyObjectCommand, DeleteObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openScratchConnection, quoteLiteral, type ScratchConnection } from '../../src/warehouse/index.ts';
import { startObjectStore, type ObjectStore } from '../support/object-store.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { logMessages, syncAndWait } from '../support/sync.ts';

const BUCKET = 'quarry-orders';
const PREFIX = `s3://${BUCKET}/exports`;
const JANUARY = `${PREFIX}/2026/01/orders.csv`;
const FEBRUARY = `${PREFIX}/2026/02/orders.parquet`;
const LATEST = `${PREFIX}/latest.jsonl`;

/** Orders as SQL rows: (id, amount). */
function ordersSql(rows: readonly (readonly [number, number])[]): string {
  return `SELECT * FROM (VALUES ${rows.map(([id, amount]) => `(${String(id)}, ${String(amount)})`).join(', ')}) AS orders(id, amount)`;
}

describe('filesystem sources reading S3-compatible object storage', () => {
  let store: ObjectStore;
  let quarry: TestQuarry;
  let writer: ScratchConnection;
  let s3: S3Client;
  const keyOf = (url: string): string => url.slice(`s3://${BUCKET}/`.length);
  const deleteObject = async (url: string): Promise<void> => { await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: keyOf(url) })); };

  const put = async (url: string, rows: readonly (readonly [number, number])[]): Promise<void> => {
    const format = url.endsWith('.parquet') ? 'parquet' : url.endsWith('.csv') ? 'csv, HEADER' : 'json';
    await writer.connection.run(`COPY (${ordersSql(rows)}) TO ${quoteLiteral(url)} (FORMAT ${format})`);
  };
  const loaded = (): Promise<Record<string, unknown>[]> =>
    quarry.query('SELECT id::INTEGER AS id, amount::DOUBLE AS amount, _quarry_file AS file FROM raw_orders.orders ORDER BY id');

  beforeAll(async () => {
    store = await startObjectStore();
    s3 = new S3Client({
      region: store.region, endpoint: `http://${store.endpoint}`, forcePathStyle: true,
      credentials: { accessKeyId: store.accessKeyId, secretAccessKey: store.secretAccessKey },
    });
    writer = await openScratchConnection(['httpfs']);
    await writer.connection.run(`CREATE TEMPORARY SECRET test_writer (
      TYPE s3, KEY_ID ${quoteLiteral(store.accessKeyId)}, SECRET ${quoteLiteral(store.secretAccessKey)},
      ENDPOINT ${quoteLiteral(store.endpoint)}, URL_STYLE 'path', USE_SSL false, REGION ${quoteLiteral(store.region)})`);
    const [, port] = store.endpoint.split(':');
    const bucketSettings = [`endpoint: "${store.endpoint}"`, `region: ${store.region}`, 'url_style: path', 'use_ssl: false'];
    quarry = await startQuarry({
      sourcesYaml: [
        'sources:',
        '  - name: orders', '    type: filesystem', '    filesystem:', `      bucket_url: ${PREFIX}/`, '      file_pattern: "**/*"',
        ...bucketSettings.map((line) => `      ${line}`),
        '      access_key_id_env: ORDERS_KEY_ID', '      secret_access_key_env: ORDERS_SECRET_KEY',
        // The same server standing in for Google Cloud Storage's S3-compatible API, as a gs:// URL reaches it.
        '  - name: google', '    type: filesystem', '    filesystem:', `      bucket_url: gs://${BUCKET}/exports/2026/01`,
        ...bucketSettings.map((line) => `      ${line}`),
        '      access_key_id_env: ORDERS_KEY_ID', '      secret_access_key_env: ORDERS_SECRET_KEY',
        // No keys of its own: a public bucket's, read unsigned, never with the host's AWS credentials.
        '  - name: keyless', '    type: filesystem', '    filesystem:', `      bucket_url: ${PREFIX}`,
        ...bucketSettings.map((line) => `      ${line}`),
        // Loopback, but not one of the addresses the tests' project.yml allows.
        '  - name: elsewhere', '    type: filesystem', '    filesystem:', `      bucket_url: ${PREFIX}`,
        `      endpoint: "127.0.0.2:${String(port)}"`, '      url_style: path', '      use_ssl: false',
        '',
      ].join('\n'),
      // The key id as the service's environment holds it; the secret in .env, where it can be changed.
      env: { ORDERS_KEY_ID: store.accessKeyId },
    });
    await appendFile(path.join(quarry.dir, '.env'), `\nORDERS_SECRET_KEY=${store.secretAccessKey}\n`);
    quarry.ctx.reloadSources();
    await put(JANUARY, [[1, 10], [2, 20]]);
    await put(FEBRUARY, [[3, 30]]);
    await put(LATEST, [[4, 40]]);
    await put(`s3://${BUCKET}/elsewhere/orders.csv`, [[99, 990]]); // outside the prefix
    await put(`${PREFIX}/notes.md`, [[98, 980]]); // not a format Quarry reads
  }, 120_000);

  afterAll(async () => {
    await quarry.close();
    s3.destroy();
    await writer.close();
    await store.stop();
  });

  it('loads every object under the prefix, nested ones too, each row naming its object', async () => {
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 4 });
    expect(await loaded()).toEqual([
      { id: 1, amount: 10, file: JANUARY }, { id: 2, amount: 20, file: JANUARY }, { id: 3, amount: 30, file: FEBRUARY }, { id: 4, amount: 40, file: LATEST },
    ]);
    const ledger = await quarry.ctx.store.fileLedger.forSource('orders');
    expect([...ledger.keys()].sort()).toEqual([JANUARY, FEBRUARY, LATEST].sort());
    // An object is never downloaded to be hashed: its ETag stands for the hash.
    expect(ledger.get(JANUARY)).toMatchObject({ rows: 2, sha256: expect.stringMatching(/^etag:[0-9a-f]+/), error: null });
    expect(ledger.get(JANUARY)?.size).toBeGreaterThan(0);
    expect(ledger.get(JANUARY)?.mtimeMs).toBeGreaterThan(0);
  });

  it('reads gs:// URLs the same way, naming each object by its gs:// URL', async () => {
    expect(await syncAndWait(quarry, 'google')).toMatchObject({ type: 'sync_completed', rows: 2 });
    expect(await quarry.query('SELECT id::INTEGER AS id, _quarry_file AS file FROM raw_google.google ORDER BY id')).toEqual([
      { id: 1, file: `gs://${BUCKET}/exports/2026/01/orders.csv` }, { id: 2, file: `gs://${BUCKET}/exports/2026/01/orders.csv` },
    ]);
  });

  it('lists the objects its last sync read, for its page, without listing the bucket again', async () => {
    const listed = await quarry.request('GET', '/api/sources/orders/objects', { as: 'viewer' });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json).toMatchObject({ source_name: 'orders', prefix: PREFIX });
    expect(listed.json.objects.map((object: { url: string; rows_loaded: number; status: string }) => [object.url, object.rows_loaded, object.status]))
      .toEqual([[JANUARY, 2, 'loaded'], [FEBRUARY, 1, 'loaded'], [LATEST, 1, 'loaded']]);
  });

  it('reads nothing again when no object changed', async () => {
    const before = await quarry.ctx.store.fileLedger.forSource('orders');
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 4 });
    expect((await logMessages(quarry, 'orders', 'INFO')).at(-1)).toBe('Loaded 0 of 3 file(s); 3 unchanged');
    expect(await quarry.ctx.store.fileLedger.forSource('orders')).toEqual(before);
  });

  it('replaces the rows of a changed object, and removes those of a deleted one', async () => {
    await put(JANUARY, [[1, 11], [2, 21], [5, 51]]);
    await deleteObject(LATEST);

    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 4 });
    expect(await loaded()).toEqual([
      { id: 1, amount: 11, file: JANUARY }, { id: 2, amount: 21, file: JANUARY }, { id: 3, amount: 30, file: FEBRUARY }, { id: 5, amount: 51, file: JANUARY },
    ]);
    const infos = await logMessages(quarry, 'orders', 'INFO');
    expect(infos).toContain('Removed the rows of 1 deleted file(s)');
    expect(infos.at(-1)).toBe('Loaded 1 of 2 file(s); 1 unchanged');
  });

  it('knows an object by its ETag: a copy onto itself (a new time) is not read again, a rewrite of the same size is', async () => {
    await s3.send(new CopyObjectCommand({ Bucket: BUCKET, Key: keyOf(JANUARY), CopySource: `${BUCKET}/${keyOf(JANUARY)}`, MetadataDirective: 'REPLACE' }));
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 4 });
    expect((await logMessages(quarry, 'orders', 'INFO')).at(-1)).toBe('Loaded 0 of 2 file(s); 2 unchanged');

    await put(JANUARY, [[1, 12], [2, 22], [5, 52]]); // the same number of bytes as before
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 4 });
    expect((await logMessages(quarry, 'orders', 'INFO')).at(-1)).toBe('Loaded 1 of 2 file(s); 1 unchanged');
    expect((await loaded()).map((row) => row.amount)).toEqual([12, 22, 30, 52]);
  });

  it('reads a source without keys unsigned, even where the host holds AWS credentials', async () => {
    const hostKeys = { AWS_ACCESS_KEY_ID: store.accessKeyId, AWS_SECRET_ACCESS_KEY: store.secretAccessKey };
    Object.assign(process.env, hostKeys);
    try {
      const ending = await syncAndWait(quarry, 'keyless');
      expect(ending).toMatchObject({ type: 'sync_failed' });
      // The server refuses an anonymous listing: had the host's keys been used, it would have answered.
      expect(ending.type === 'sync_failed' && ending.error).toMatch(/^Cannot list the objects under s3:\/\/quarry-orders\/exports\/: AccessDenied \(HTTP 403\)/);
    } finally {
      for (const name of Object.keys(hostKeys)) Reflect.deleteProperty(process.env, name);
    }
  });

  it('refuses an endpoint on this machine that project.yml does not allow, before connecting', async () => {
    const ending = await syncAndWait(quarry, 'elsewhere');
    expect(ending).toMatchObject({ type: 'sync_failed' });
    expect(ending.type === 'sync_failed' && ending.error).toMatch(/^Quarry does not connect to 127\.0\.0\.2: it is a loopback address.*network\.allow_private/);
  });

  it('fails the sync with a wrong secret key, naming the bucket and not the key, and keeps the loaded rows', async () => {
    const rowsBefore = await loaded();
    const wrongSecret = `wrong${store.secretAccessKey.slice(5)}`;
    const envFile = path.join(quarry.dir, '.env');
    await writeFile(envFile, (await readFile(envFile, 'utf8')).replace(store.secretAccessKey, wrongSecret));
    quarry.ctx.reloadSources();

    const ending = await syncAndWait(quarry, 'orders');
    expect(ending).toMatchObject({ type: 'sync_failed' });
    const error = ending.type === 'sync_failed' ? ending.error : '';
    expect(error).toContain(`Cannot list the objects under ${PREFIX}/`);
    expect(error).toContain('403');
    expect(error).not.toContain(wrongSecret);
    expect(error).not.toContain(store.secretAccessKey);
    expect(error).not.toContain('\n');
    expect(await loaded()).toEqual(rowsBefore);
  });

  it('answers a connection test with how many objects match', async () => {
    const refused = await quarry.request('POST', '/api/sources/orders/test', { as: 'editor', body: {} });
    expect(refused.json).toMatchObject({ success: false });
    expect(refused.json.message).toContain(`Cannot list the objects under ${PREFIX}/`);

    const envFile = path.join(quarry.dir, '.env');
    await writeFile(envFile, (await readFile(envFile, 'utf8')).replace(`wrong${store.secretAccessKey.slice(5)}`, store.secretAccessKey));
    quarry.ctx.reloadSources();
    const passed = await quarry.request('POST', '/api/sources/orders/test', { as: 'editor', body: {} });
    expect(passed.json).toEqual({ success: true, message: `2 object(s) match **/* under ${PREFIX}/` });
  });

  // Last: the server is stopped.
  it('keeps the loaded rows when the bucket goes away in the middle of a sync, and says so', async () => {
    const rowsBefore = await loaded();
    for (const month of ['03', '04', '05']) {
      await writer.connection.run(`COPY (SELECT range AS id, range % 97 AS amount FROM range(2000000)) TO ${quoteLiteral(`${PREFIX}/2026/${month}/orders.csv`)} (FORMAT csv, HEADER)`);
    }
    const sync = await quarry.ctx.jobs.startSync('orders', { fullRefresh: false, requestedBy: 'test' });
    await expect.poll(async () => (await quarry.ctx.store.jobs.get(sync.job.id))?.status, { timeout: 30_000, interval: 20 }).toBe('running');
    // Reading the three objects takes seconds; on a slow machine the stop may come while they are being listed.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await store.stop();
    const ending = await sync.ended;
    await quarry.jobsIdle();
    expect(ending.status).toBe('failed');
    expect(ending.transient).toBe(true);
    // Stopped while the objects were read, or (on a slow machine) while they were listed.
    expect(ending.error).toMatch(/^(The object storage of s3:\/\/quarry-orders\/exports stopped answering during the sync|Cannot list the objects under s3:\/\/quarry-orders\/exports\/)/);
    expect(ending.error).not.toContain(store.secretAccessKey);
    expect(await loaded()).toEqual(rowsBefore);
  }, 120_000);
});
