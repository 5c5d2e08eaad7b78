import { createHash, createHmac } from 'node:crypto';
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

  const put = async (url: string, rows: readonly (readonly [number, number])[]): Promise<void> => {
    const format = url.endsWith('.parquet') ? 'parquet' : url.endsWith('.csv') ? 'csv, HEADER' : 'json';
    await writer.connection.run(`COPY (${ordersSql(rows)}) TO ${quoteLiteral(url)} (FORMAT ${format})`);
  };
  const loaded = (): Promise<Record<string, unknown>[]> =>
    quarry.query('SELECT id::INTEGER AS id, amount::DOUBLE AS amount, _quarry_file AS file FROM raw_orders.orders ORDER BY id');

  beforeAll(async () => {
    store = await startObjectStore();
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
    await writer.close();
    await store.stop();
  });

  it('loads every object under the prefix, nested ones too, each row naming its object', async () => {
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 4 });
    expect(await loaded()).toEqual([
      { id: 1, amount: 10, file: JANUARY }, { id: 2, amount: 20, file: JANUARY }, { id: 3, amount: 30, file: FEBRUARY }, { id: 4, amount: 40, file: LATEST },
    ]);
    const ledger = quarry.ctx.store.fileLedger.forSource('orders');
    expect([...ledger.keys()].sort()).toEqual([JANUARY, FEBRUARY, LATEST].sort());
    expect(ledger.get(JANUARY)).toMatchObject({ rows: 2, sha256: '', error: null });
    expect(ledger.get(JANUARY)?.size).toBeGreaterThan(0);
    expect(ledger.get(JANUARY)?.mtimeMs).toBeGreaterThan(0);
  });

  it('reads nothing again when no object changed', async () => {
    const before = quarry.ctx.store.fileLedger.forSource('orders');
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 4 });
    expect(logMessages(quarry, 'orders', 'INFO').at(-1)).toBe('Loaded 0 of 3 file(s); 3 unchanged');
    expect(quarry.ctx.store.fileLedger.forSource('orders')).toEqual(before);
  });

  it('replaces the rows of a changed object, and removes those of a deleted one', async () => {
    await put(JANUARY, [[1, 11], [2, 21], [5, 51]]);
    await deleteObject(store, LATEST);

    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 4 });
    expect(await loaded()).toEqual([
      { id: 1, amount: 11, file: JANUARY }, { id: 2, amount: 21, file: JANUARY }, { id: 3, amount: 30, file: FEBRUARY }, { id: 5, amount: 51, file: JANUARY },
    ]);
    const infos = logMessages(quarry, 'orders', 'INFO');
    expect(infos).toContain('Removed the rows of 1 deleted file(s)');
    expect(infos.at(-1)).toBe('Loaded 1 of 2 file(s); 1 unchanged');
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
});

/** Deletes an object with a request signed as S3 wants (Signature Version 4); DuckDB has no statement for it. */
async function deleteObject(store: ObjectStore, url: string): Promise<void> {
  const key = url.slice('s3://'.length);
  const now = new Date().toISOString().replace(/[-:]|\.\d+/g, '');
  const day = now.slice(0, 8);
  const emptyHash = sha256('');
  const signedHeaders = 'host;x-amz-content-sha256;x-amz-date';
  const canonical = ['DELETE', `/${key}`, '', `host:${store.endpoint}`, `x-amz-content-sha256:${emptyHash}`, `x-amz-date:${now}`, '', signedHeaders, emptyHash].join('\n');
  const scope = `${day}/${store.region}/s3/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', now, scope, sha256(canonical)].join('\n');
  const signingKey = ['s3', 'aws4_request'].reduce(
    (signing, part) => hmac(signing, part), hmac(hmac(`AWS4${store.secretAccessKey}`, day), store.region),
  );
  const response = await fetch(`http://${store.endpoint}/${key}`, {
    method: 'DELETE',
    headers: {
      'x-amz-content-sha256': emptyHash, 'x-amz-date': now,
      authorization: `AWS4-HMAC-SHA256 Credential=${store.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${hmac(signingKey, toSign).toString('hex')}`,
    },
  });
  if (response.status !== 204) throw new Error(`DELETE ${url} answered ${String(response.status)}: ${await response.text()}`);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function hmac(key: string | Buffer, text: string): Buffer {
  return createHmac('sha256', key).update(text).digest();
}
