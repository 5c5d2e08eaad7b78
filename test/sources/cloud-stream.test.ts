import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';
import { GoogleOAuth, makeServiceAccount } from '../fakes/google-oauth.ts';
import { PubSubSubscription, startPubSubFake } from '../fakes/google-pubsub.ts';

const PROJECT = 'quarry-test';
const oauth = new GoogleOAuth();
const orders = new PubSubSubscription();
let api: FakeApi;
let quarry: TestQuarry;

function publishOrders(from: number, count: number): void {
  for (let n = from; n < from + count; n += 1) {
    orders.publish(JSON.stringify({ order_id: n, total: n * 2.5, customer: { id: n % 4, tier: 'gold' }, items: [{ sku: `S${String(n)}`, qty: 1 }] }), { source: 'shop', version: '2' });
  }
}

beforeAll(async () => {
  api = await startPubSubFake(PROJECT, new Map([['orders-sub', orders]]), oauth);
  const account = makeServiceAccount(`${api.url}/token`);
  oauth.serviceAccounts.set(account.clientEmail, account);
  const source = (name: string, credentialsEnv: string) =>
    `  - name: ${name}\n    type: cloud_stream\n    generic_config: {subscription: orders-sub, credentials_env: ${credentialsEnv}, batch_size: 10, base_url: "${api.url}"}`;
  quarry = await startQuarry({
    env: { CLOUD_STREAM_CREDENTIALS: account.keyFile },
    sourcesYaml: ['sources:', source('stream', 'CLOUD_STREAM_CREDENTIALS'), ''].join('\n'),
  });
});

afterAll(async () => {
  await quarry.close();
  await api.close();
});

const calls = (method: string) => api.requests.filter((request) => request.path.endsWith(`:${method}`));

describe('cloud_stream (Google Cloud Pub/Sub)', () => {
  it('pulls until the subscription is empty, decodes JSON payloads into columns, and acknowledges after the commit', async () => {
    publishOrders(1, 22);
    orders.publish('plain text event', { source: 'legacy' });
    expect(await syncAndWait(quarry, 'stream')).toMatchObject({ type: 'sync_completed', rows: 23 });
    expect(calls('pull').map((request) => (request.body as { maxMessages: number }).maxMessages)).toEqual([10, 10, 10, 10]);
    expect(await quarry.query('SELECT count(*) AS n, sum(total) AS total, count(*) FILTER (WHERE data IS NOT NULL) AS texts FROM raw_stream.messages'))
      .toEqual([{ n: 23, total: 2.5 * (22 * 23) / 2, texts: 1 }]);
    expect(await quarry.query('SELECT customer.tier AS tier, items[1].sku AS sku, attributes.source AS origin, publish_time IS NOT NULL AS stamped FROM raw_stream.messages WHERE order_id = 7'))
      .toEqual([{ tier: 'gold', sku: 'S7', origin: 'shop', stamped: true }]);
    expect(await quarry.query("SELECT data FROM raw_stream.messages WHERE attributes.source = 'legacy'")).toEqual([{ data: 'plain text event' }]);
    expect(calls('acknowledge').length).toBe(1);
    expect(orders.acknowledged.size).toBe(23);
  });

  it('acknowledges nothing when a sync fails, so the messages come again and load once', async () => {
    publishOrders(100, 15);
    api.inject({ status: 403, atRequest: 2, pathPrefix: '/v1/projects/' });
    const acksBefore = calls('acknowledge').length;
    const failed = await syncAndWait(quarry, 'stream');
    expect(failed).toEqual(expect.objectContaining({ type: 'sync_failed', error: `POST ${api.url}/v1/projects/${PROJECT}/subscriptions/orders-sub:pull answered 403 Forbidden: injected 403` }));
    expect(calls('acknowledge').length).toBe(acksBefore);
    expect(await quarry.query('SELECT count(*) AS n FROM raw_stream.messages')).toEqual([{ n: 23 }]);
    orders.expireDeadlines(); // the ten pulled before the failure were never acknowledged
    expect(await syncAndWait(quarry, 'stream')).toMatchObject({ type: 'sync_completed', rows: 15 });
    expect(await quarry.query('SELECT count(*) AS n, count(DISTINCT message_id) AS ids FROM raw_stream.messages')).toEqual([{ n: 38, ids: 38 }]);
    expect(orders.acknowledged.size).toBe(38);
  });
});
