import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect, headers, type JetStreamManager, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { blockLoadsInto } from '../support/blocked-table.ts';
import { freePort } from '../support/free-port.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const NATS_URL = 'nats://127.0.0.1:4222';
const suffix = randomBytes(4).toString('hex');
const STREAM = `QUARRY_TEST_${suffix}`;
const SUBJECT = `quarry_test_${suffix}`;
const TABLE = `raw_orders.quarry_test_${suffix}`;
const AUTH_PASSWORD = `right-pw-${suffix}`;

/** A second, password-protected nats-server of the machine's own, for the wrong-credentials case. */
async function startAuthServer(port: number): Promise<ChildProcess> {
  const server = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), '--user', 'quarry', '--pass', AUTH_PASSWORD], { stdio: 'ignore' });
  await vi.waitFor(async () => {
    const probe = await connect({ servers: `nats://127.0.0.1:${String(port)}`, user: 'quarry', pass: AUTH_PASSWORD, reconnect: false });
    await probe.close();
  }, { timeout: 10_000, interval: 50 });
  return server;
}

function sourcesYaml(authPort: number): string {
  return `sources:
  - name: orders
    type: event_stream
    generic_config: { servers: ["${NATS_URL}"], stream: ${STREAM}, idle_timeout_seconds: 1 }
  - name: refused
    type: event_stream
    generic_config: { servers: ["nats://127.0.0.1:1"], stream: ${STREAM} }
  - name: wrong_password
    type: event_stream
    generic_config: { servers: ["nats://127.0.0.1:${String(authPort)}"], stream: ${STREAM}, username_env: NATS_USER, password_env: NATS_PASSWORD }
`;
}

describe('event_stream from NATS JetStream', () => {
  let nats: NatsConnection;
  let manager: JetStreamManager;
  let authServer: ChildProcess;
  let quarry: TestQuarry;

  const publish = async (subject: string, payload: string, headerPairs: Record<string, string> = {}): Promise<void> => {
    const messageHeaders = headers();
    for (const [name, value] of Object.entries(headerPairs)) messageHeaders.set(name, value);
    await nats.jetstream().publish(`${SUBJECT}.${subject}`, payload, { headers: messageHeaders });
  };
  const consumerState = async () => {
    const info = await manager.consumers.info(STREAM, 'quarry_orders');
    return { pending: info.num_ack_pending, ackedThrough: info.ack_floor.stream_seq };
  };

  beforeAll(async () => {
    nats = await connect({ servers: NATS_URL });
    manager = await nats.jetstreamManager();
    await manager.streams.add({ name: STREAM, subjects: [`${SUBJECT}.>`] });
    const authPort = await freePort();
    authServer = await startAuthServer(authPort);
    quarry = await startQuarry({ sourcesYaml: sourcesYaml(authPort), env: { NATS_USER: 'quarry', NATS_PASSWORD: 'wrong-pw-9x' } });
  });

  afterAll(async () => {
    await quarry.close();
    await manager.streams.delete(STREAM);
    await nats.close();
    authServer.kill();
  });

  it('loads each message as a row: JSON fields as columns with nested ones queryable, other payloads as text, plus subject, sequence, time and headers', async () => {
    await publish('created', JSON.stringify({ order_id: 1, customer: { name: 'Ada', tier: 'gold' }, items: [{ sku: 'A-1', quantity: 2 }] }), { 'trace-id': 't-1' });
    await publish('created', JSON.stringify({ order_id: 2, customer: { name: 'Bob', tier: 'basic' }, items: [] }));
    await publish('note', 'plain text, not JSON');

    const end = await syncAndWait(quarry, 'orders');
    expect(end).toMatchObject({ type: 'sync_completed', rows: 3 });
    expect(await quarry.query(`SELECT _sequence, _subject, order_id, customer.name AS name, items[1].sku AS sku, value, _headers['trace-id'] AS trace
      FROM ${TABLE} ORDER BY _sequence`)).toEqual([
      { _sequence: 1, _subject: `${SUBJECT}.created`, order_id: 1, name: 'Ada', sku: 'A-1', value: null, trace: 't-1' },
      { _sequence: 2, _subject: `${SUBJECT}.created`, order_id: 2, name: 'Bob', sku: null, value: null, trace: null },
      { _sequence: 3, _subject: `${SUBJECT}.note`, order_id: null, name: null, sku: null, value: 'plain text, not JSON', trace: null },
    ]);
    const [times] = await quarry.query(`SELECT typeof(max(_timestamp)) AS type, epoch_ms(max(_timestamp)) AS newest FROM ${TABLE}`);
    expect(times?.type).toBe('TIMESTAMP');
    expect(Math.abs(Number(times?.newest) - Date.now())).toBeLessThan(60 * 60 * 1000);
    expect(await consumerState()).toEqual({ pending: 0, ackedThrough: 3 });
  });

  it('loads only the messages that arrived since the last sync', async () => {
    await publish('created', JSON.stringify({ order_id: 3, customer: { name: 'Cy', tier: 'gold' }, items: [] }));
    await publish('created', JSON.stringify({ order_id: 4, customer: { name: 'Di', tier: 'gold' }, items: [] }));
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 2 });
    expect(await quarry.query(`SELECT count(*) AS n, max(order_id) AS last FROM ${TABLE}`)).toEqual([{ n: 5, last: 4 }]);
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 0 });
    expect(await quarry.ctx.store.sourceState.forSource('orders')).toEqual(new Map([[STREAM, 5]]));
  });

  it('acknowledges nothing when the load fails, so the next sync loads the same messages once', async () => {
    await publish('created', JSON.stringify({ order_id: 5, customer: { name: 'Ed', tier: 'basic' }, items: [] }));
    await publish('created', JSON.stringify({ order_id: 6, customer: { name: 'Flo', tier: 'basic' }, items: [] }));
    const unblock = await blockLoadsInto(quarry, 'raw_orders', `quarry_test_${suffix}`);
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_failed' });
    expect(await consumerState()).toEqual({ pending: 2, ackedThrough: 5 });
    await unblock();

    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 2 });
    expect(await quarry.query(`SELECT count(*) AS n, count(DISTINCT _sequence) AS distinct_messages, max(order_id) AS last FROM ${TABLE}`))
      .toEqual([{ n: 7, distinct_messages: 7, last: 6 }]);
    expect(await consumerState()).toEqual({ pending: 0, ackedThrough: 7 });
  });

  it('fails a refused connection and refused credentials with one line naming the server, never the password', async () => {
    const refused = await syncAndWait(quarry, 'refused');
    expect(refused.type === 'sync_failed' ? refused.error : '').toBe('Could not connect to NATS at 127.0.0.1:1: connection refused');
    const denied = await syncAndWait(quarry, 'wrong_password');
    expect(denied.type === 'sync_failed' ? denied.error : '').toMatch(/^Could not connect to NATS at 127\.0\.0\.1:\d+: the server refused the credentials/);
    expect(JSON.stringify(await quarry.ctx.store.logs.latest(100))).not.toContain('wrong-pw-9x');
  });
});
