import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventBus, PostgresEventRelay, type QuarryEvent } from '../../src/events/index.ts';
import { createLogger } from '../../src/logger.ts';
import { SecretRedactor } from '../../src/sources/config/index.ts';
import { LOCAL_POSTGRES, onPostgres } from '../support/local-postgres.ts';

interface Peer {
  bus: EventBus;
  relay: PostgresEventRelay;
  heard: QuarryEvent[];
}

const log = createLogger({ level: 'silent' });

async function startProcess(schema: string): Promise<Peer> {
  const bus = new EventBus(log, () => new Date(), new SecretRedactor());
  const heard: QuarryEvent[] = [];
  bus.subscribe((event) => { heard.push(event); });
  const relay = new PostgresEventRelay({ bus, connection: { ...LOCAL_POSTGRES }, schema, log });
  await relay.start();
  return { bus, relay, heard };
}

function sourcesHeard(peer: Peer): string[] {
  return peer.heard.map((event) => ('source' in event ? event.source : event.type));
}

describe('PostgresEventRelay', () => {
  let a: Peer;
  let b: Peer;
  let otherC: Peer;
  let otherD: Peer;
  let schema: string;

  beforeEach(async () => {
    schema = `quarry_platform_${randomBytes(6).toString('hex')}`;
    const otherSchema = `quarry_platform_${randomBytes(6).toString('hex')}`;
    [a, b, otherC, otherD] = await Promise.all([startProcess(schema), startProcess(schema), startProcess(otherSchema), startProcess(otherSchema)]);
  });

  afterEach(async () => {
    await Promise.all([a, b, otherC, otherD].map((peer) => peer.relay.close()));
  });

  it('hands an event to the other processes of the same schema once, as it was published, and to no one else', async () => {
    a.bus.publish({ type: 'sync_completed', source: 'orders', rows: 3 }, new Date('2024-05-01T10:00:00.000Z'));
    await expect.poll(() => b.heard.length).toBe(1);
    // Anything B sent back, or A sent twice, is sent before these and so heard before them.
    b.bus.publish({ type: 'sync_started', source: 'from-b' });
    await expect.poll(() => sourcesHeard(a)).toEqual(['orders', 'from-b']);
    a.bus.publish({ type: 'sync_started', source: 'from-a' });
    await expect.poll(() => sourcesHeard(b)).toEqual(['orders', 'from-b', 'from-a']);
    otherD.bus.publish({ type: 'sync_started', source: 'other-deployment' });
    await expect.poll(() => sourcesHeard(otherC)).toEqual(['other-deployment']);

    expect(b.heard[0]).toEqual({ type: 'sync_completed', source: 'orders', rows: 3, timestamp: '2024-05-01T10:00:00.000Z' });
    expect(b.heard[0]).toEqual(a.heard[0]);
    expect(sourcesHeard(a)).toEqual(['orders', 'from-b', 'from-a']);
    expect(sourcesHeard(otherD)).toEqual(['other-deployment']);
  });

  it('sends events within a transaction: heard when it commits, after what was published before, never when it rolls back, and once', async () => {
    const withinTransaction = async (events: QuarryEvent[], outcome: 'COMMIT' | 'ROLLBACK'): Promise<void> => onPostgres(async (client) => {
      await client.query('BEGIN');
      await a.relay.sendWithin(events, (text, values) => client.query(text, values));
      await client.query(outcome);
    });
    a.bus.publish({ type: 'sync_progress', source: 'before', rows: 1, pages: 1 });
    const rolledBack = a.bus.stamp({ type: 'sync_completed', source: 'rolled-back', rows: 1 });
    await withinTransaction([rolledBack], 'ROLLBACK');
    const committed = a.bus.stamp({ type: 'sync_completed', source: 'committed', rows: 2 });
    await withinTransaction([committed], 'COMMIT');
    // This process's own listeners get it once committed; its relay does not send it a second time.
    a.bus.receive(committed);
    a.bus.publish({ type: 'sync_started', source: 'after' });
    await expect.poll(() => sourcesHeard(b)).toEqual(['before', 'committed', 'after']);
    expect(b.heard[1]).toEqual(committed);
    expect(sourcesHeard(a)).toEqual(['before', 'committed', 'after']);
  });

  it('keeps the order in which events were published', async () => {
    for (let page = 0; page < 50; page++) a.bus.publish({ type: 'sync_progress', source: 'orders', rows: page * 100, pages: page });
    await expect.poll(() => b.heard.length).toBe(50);
    expect(b.heard.map((event) => (event.type === 'sync_progress' ? event.pages : -1))).toEqual([...Array(50).keys()]);
  });

  it('shortens the text of an event too long for a notice, keeping how it began', async () => {
    const error = `Upstream said: ${'é'.repeat(20_000)}`;
    a.bus.publish({ type: 'sync_failed', source: 'orders', error });
    await expect.poll(() => b.heard.length).toBe(1);

    const received = b.heard[0]!;
    expect(received).toMatchObject({ type: 'sync_failed', source: 'orders', timestamp: a.heard[0]!.timestamp });
    const shortened = (received as Extract<QuarryEvent, { type: 'sync_failed' }>).error;
    expect(shortened.endsWith('…')).toBe(true);
    expect(error.startsWith(shortened.slice(0, -1))).toBe(true);
    expect(shortened.length).toBeGreaterThan(3000);
    expect(Buffer.byteLength(JSON.stringify({ schema, origin: a.relay.origin, event: received }))).toBeLessThan(8000);
  });

  it('ignores notices that are not events', async () => {
    const notices = [
      'not json',
      JSON.stringify({ schema, origin: 'elsewhere', event: { type: 'sync_exploded', source: 'orders', timestamp: '2024-05-01T10:00:00.000Z' } }),
      JSON.stringify({ schema, origin: 'elsewhere', event: { type: 'sync_started', source: 'orders' } }),
      JSON.stringify({ schema, origin: 'elsewhere', event: 'sync_started' }),
      JSON.stringify({ origin: 'elsewhere', event: { type: 'sync_started', source: 'orders', timestamp: '2024-05-01T10:00:00.000Z' } }),
      JSON.stringify({ schema, origin: 'elsewhere', event: { type: 'sync_started', source: 'well-formed', timestamp: '2024-05-01T10:00:00.000Z' } }),
    ];
    await onPostgres(async (client) => {
      for (const notice of notices) await client.query("SELECT pg_notify('quarry_events', $1)", [notice]);
    });
    await expect.poll(() => sourcesHeard(b)).toEqual(['well-formed']);
    await expect.poll(() => sourcesHeard(a)).toEqual(['well-formed']);
  });

  it('hears the other processes again after its listening connection was cut', async () => {
    const applicationName = `quarry-events-${b.relay.origin}`;
    const listeningConnections = (): Promise<number[]> => onPostgres(async (client) => {
      const result = await client.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'", [applicationName],
      );
      return result.rows.map((row) => row.pid);
    });
    const [cut] = await listeningConnections();
    expect(cut).toBeDefined();
    await onPostgres((client) => client.query('SELECT pg_terminate_backend($1)', [cut]));

    await vi.waitFor(() => {
      a.bus.publish({ type: 'sync_started', source: 'after-the-cut' });
      expect(sourcesHeard(b)).toContain('after-the-cut');
    }, { timeout: 10_000, interval: 250 });
    const reconnected = await listeningConnections();
    expect(reconnected).toHaveLength(1);
    expect(reconnected).not.toContain(cut);
  });
});
