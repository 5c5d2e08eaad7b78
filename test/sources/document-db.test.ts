import { randomBytes } from 'node:crypto';
import { Decimal128, ObjectId } from 'bson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeMongo, type FakeMongo } from '../fakes/mongodb-wire.ts';
import { blockLoadsInto } from '../support/blocked-table.ts';
import { testConnection } from '../../src/jobs/index.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { logMessages, syncAndWait } from '../support/sync.ts';

const DATABASE = `shop_${randomBytes(4).toString('hex')}`;
const USER = { user: 'quarry', password: 'right-pw-7q' };

function sourceYaml(name: string, urlEnv: string, config = ''): string {
  return `  - name: ${name}\n    type: document_db\n    generic_config: { credentials_env: ${urlEnv}${config} }\n`;
}

describe('document_db through the MongoDB driver, against a wire-protocol fake', () => {
  let mongo: FakeMongo;
  let quarry: TestQuarry;
  const ids = [new ObjectId(), new ObjectId(), new ObjectId()] as const;

  beforeAll(async () => {
    mongo = await startFakeMongo({ users: { [USER.user]: USER.password } });
    mongo.collection(DATABASE, 'orders').push(
      {
        _id: ids[0], number: 1, total: Decimal128.fromString('19.90'), updatedAt: new Date('2026-01-01T10:00:00Z'),
        customer: { name: 'Ada', address: { city: 'Paris' } }, lines: [{ sku: 'A-1', quantity: 2 }, { sku: 'B-2', quantity: 1 }],
      },
      { _id: ids[1], number: 2, total: Decimal128.fromString('5.00'), updatedAt: new Date('2026-01-02T10:00:00Z'), customer: { name: 'Bob', address: { city: 'Oslo' } }, lines: [] },
    );
    mongo.collection(DATABASE, 'customers').push({ _id: 'c-1', name: 'Ada' }, { _id: 'c-2', name: 'Bob' });
    quarry = await startQuarry({
      env: {
        SHOP_URL: mongo.url(DATABASE, USER),
        REFUSED_URL: `mongodb://quarry:refused-pw-3k@127.0.0.1:1/${DATABASE}?serverSelectionTimeoutMS=1000`,
        WRONG_URL: mongo.url(DATABASE, { user: USER.user, password: 'wrong-pw-5z' }),
      },
      sourcesYaml: `sources:\n${sourceYaml('shop', 'SHOP_URL', ', incremental: { orders: updatedAt }, batch_size: 1')}`
        + sourceYaml('refused', 'REFUSED_URL') + sourceYaml('wrong_password', 'WRONG_URL'),
    });
  });

  afterAll(async () => {
    await quarry.close();
    await mongo.close();
  });

  it('loads every collection, ids as hex, Decimal128 as text, dates as timestamps and nested documents queryable', async () => {
    const end = await syncAndWait(quarry, 'shop');
    expect(end).toMatchObject({ type: 'sync_completed', rows: 4 });
    expect(await quarry.query(`SELECT _id, number, total, typeof(updatedAt) AS updated_type, customer.address.city AS city,
      lines[1].sku AS first_sku, len(lines) AS line_count FROM raw_shop.orders ORDER BY number`)).toEqual([
      { _id: ids[0].toHexString(), number: 1, total: '19.90', updated_type: 'TIMESTAMP', city: 'Paris', first_sku: 'A-1', line_count: 2 },
      { _id: ids[1].toHexString(), number: 2, total: '5.00', updated_type: 'TIMESTAMP', city: 'Oslo', first_sku: null, line_count: 0 },
    ]);
    expect(await quarry.query('SELECT _id, name FROM raw_shop.customers ORDER BY _id')).toEqual([{ _id: 'c-1', name: 'Ada' }, { _id: 'c-2', name: 'Bob' }]);
    // The driver signed in with SCRAM-SHA-256 and, with batch_size 1, read the orders one getMore at a time.
    expect(mongo.commands).toEqual(expect.arrayContaining(['saslStart', 'saslContinue', 'listCollections', 'find']));
    expect(mongo.commands.filter((command) => command === 'getMore').length).toBeGreaterThanOrEqual(2);
  });

  it('passes the connection test (it reads the first documents and stops)', async () => {
    const source = quarry.ctx.sources.find((candidate) => candidate.name === 'shop')!;
    const result = await testConnection({
      source, paths: quarry.ctx.paths, env: quarry.ctx.env, sourceTokens: quarry.ctx.sourceTokens, outbound: quarry.ctx.outbound, dataRoots: quarry.ctx.dataRoots, now: quarry.ctx.now, signal: AbortSignal.timeout(20_000),
      spreadsheetSeconds: 60,
    });
    expect(result).toBe('Connected and read the first records');
  });

  it('re-syncs only documents past the cursor, merged on _id, and replaces the collections without one', async () => {
    const orders = mongo.collection(DATABASE, 'orders');
    Object.assign(orders[0] ?? {}, { customer: { name: 'Ada L.', address: { city: 'London' } }, updatedAt: new Date('2026-02-01T00:00:00Z') });
    orders.push({ _id: ids[2], number: 3, total: Decimal128.fromString('1.00'), updatedAt: new Date('2026-02-02T00:00:00Z'), customer: { name: 'Cy', address: { city: 'Rome' } }, lines: [] });
    mongo.collection(DATABASE, 'customers').push({ _id: 'c-3', name: 'Cy' });

    expect(await syncAndWait(quarry, 'shop')).toMatchObject({ type: 'sync_completed', rows: 5 });
    expect(await logMessages(quarry, 'shop', 'INFO')).toContain('Exported 2 documents of orders with updatedAt after 2026-01-02T10:00:00.000Z');
    expect(await quarry.query('SELECT number, customer.address.city AS city FROM raw_shop.orders ORDER BY number')).toEqual([
      { number: 1, city: 'London' }, { number: 2, city: 'Oslo' }, { number: 3, city: 'Rome' },
    ]);
    expect(await quarry.query('SELECT count(*) AS n FROM raw_shop.customers')).toEqual([{ n: 3 }]);
    expect((await quarry.ctx.store.sourceState.forSource('shop')).get('orders')).toEqual({ type: 'date', value: '2026-02-02T00:00:00.000Z' });
  });

  it('keeps the cursor where it was when the load fails, so the next sync loads the same documents', async () => {
    mongo.collection(DATABASE, 'orders').push({ _id: new ObjectId(), number: 4, updatedAt: new Date('2026-03-01T00:00:00Z'), customer: { name: 'Di', address: { city: 'Oslo' } }, lines: [] });
    const unblock = await blockLoadsInto(quarry, 'raw_shop', 'orders');
    expect(await syncAndWait(quarry, 'shop')).toMatchObject({ type: 'sync_failed' });
    expect((await quarry.ctx.store.sourceState.forSource('shop')).get('orders')).toEqual({ type: 'date', value: '2026-02-02T00:00:00.000Z' });
    await unblock();

    expect(await syncAndWait(quarry, 'shop')).toMatchObject({ type: 'sync_completed' });
    expect(await quarry.query('SELECT count(*) AS n, count(DISTINCT _id) AS ids, max(number) AS last FROM raw_shop.orders')).toEqual([{ n: 4, ids: 4, last: 4 }]);
  });

  it('fails a refused connection and refused credentials with one line naming the host, never the password', async () => {
    const refused = await syncAndWait(quarry, 'refused');
    expect(refused.type === 'sync_failed' ? refused.error : '').toBe('Could not connect to MongoDB at 127.0.0.1:1: connection refused');
    const denied = await syncAndWait(quarry, 'wrong_password');
    expect(denied.type === 'sync_failed' ? denied.error : '')
      .toBe(`Could not connect to MongoDB at 127.0.0.1:${String(mongo.port)}: the server refused the credentials (authentication failed)`);
    const logs = JSON.stringify(await quarry.ctx.store.logs.latest(100));
    expect(logs).not.toContain('refused-pw-3k');
    expect(logs).not.toContain('wrong-pw-5z');
  });
});
