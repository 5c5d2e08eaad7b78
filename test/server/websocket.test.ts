import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

const SOURCES = `sources:
  - name: orders
    type: local_files
    local_files: { directory: data/orders, file_pattern: "*.csv" }
  - name: other
    type: local_files
    local_files: { directory: data/other, file_pattern: "*.csv" }
`;

interface Feed {
  socket: WebSocket;
  messages: Record<string, unknown>[];
  waitFor(count: number): Promise<Record<string, unknown>[]>;
  closed: Promise<{ code: number; reason: string }>;
}

function openFeed(url: string, headers: Record<string, string>): Promise<Feed> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${url.replace('http', 'ws')}/ws`, { headers });
    const messages: Record<string, unknown>[] = [];
    const waiters: (() => void)[] = [];
    socket.on('message', (data: Buffer) => {
      messages.push(JSON.parse(data.toString()) as Record<string, unknown>);
      for (const waiter of waiters.splice(0)) waiter();
    });
    const closed = new Promise<{ code: number; reason: string }>((done) => {
      socket.on('close', (code, reason) => { done({ code, reason: reason.toString() }); });
    });
    socket.on('open', () => {
      resolve({
        socket, messages, closed,
        waitFor: (count) => new Promise((done) => {
          const check = (): void => { if (messages.length >= count) done(messages.slice(0, count)); else waiters.push(check); };
          check();
        }),
      });
    });
    socket.on('unexpected-response', (_request, response) => { reject(new Error(`HTTP ${String(response.statusCode)}`)); });
    socket.on('error', reject);
  });
}

describe('WebSocket /ws', () => {
  let quarry: TestQuarry;
  beforeAll(async () => {
    quarry = await startQuarry({ sourcesYaml: SOURCES });
    for (const name of ['orders', 'other']) {
      mkdirSync(path.join(quarry.dir, 'data', name), { recursive: true });
      writeFileSync(path.join(quarry.dir, 'data', name, 'a.csv'), 'id\n1\n2\n');
    }
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('refuses an unauthenticated upgrade with 401, and a cross-site one with 403', async () => {
    await expect(openFeed(quarry.url, {})).rejects.toThrow('HTTP 401');
    await expect(openFeed(quarry.url, { authorization: 'Bearer svc_ak_nope' })).rejects.toThrow('HTTP 401');
    await expect(openFeed(quarry.url, { cookie: await quarry.login('viewer'), origin: 'https://evil.example' })).rejects.toThrow('HTTP 403');
  });

  it('streams sync events in order, each with exactly its documented fields', async () => {
    const feed = await openFeed(quarry.url, { cookie: await quarry.login('viewer') });
    await quarry.request('POST', '/api/sources/orders/sync', { as: 'editor' });
    const [started, completed] = await feed.waitFor(2);
    expect(started).toEqual({ type: 'sync_started', source: 'orders', timestamp: expect.stringMatching(/Z$/) });
    expect(completed).toEqual({ type: 'sync_completed', source: 'orders', rows: 2, timestamp: expect.stringMatching(/Z$/) });
    feed.socket.close();
  });

  it('streams upload then delete events to an API-key client', async () => {
    const { json } = await quarry.request('POST', '/api/auth/api-keys', { as: 'viewer', body: { name: 'feed' } });
    const feed = await openFeed(quarry.url, { authorization: `Bearer ${json.key}` });
    feed.socket.send(JSON.stringify({ action: 'subscribe', types: ['csv_uploaded', 'csv_deleted'] }));
    await new Promise((resolve) => { setImmediate(resolve); });
    const form = new FormData();
    form.append('file', new Blob(['id\n9\n']), 'b.csv');
    await quarry.request('POST', '/api/sources/orders/upload-csv', { as: 'editor', body: form });
    await quarry.request('DELETE', `/api/sources/orders/csv-files?file_path=${encodeURIComponent(path.join(quarry.dir, 'data', 'orders', 'b.csv'))}`, { as: 'editor' });
    const events = await feed.waitFor(2);
    expect(events.map((event) => [event.type, event.file])).toEqual([['csv_uploaded', 'b.csv'], ['csv_deleted', 'b.csv']]);
    await quarry.jobsIdle();
    expect(feed.messages.every((event) => event.type === 'csv_uploaded' || event.type === 'csv_deleted')).toBe(true);
    feed.socket.close();
  });

  it('filters by source', async () => {
    const feed = await openFeed(quarry.url, { cookie: await quarry.login('viewer') });
    feed.socket.send(JSON.stringify({ action: 'subscribe', sources: ['other'] }));
    await new Promise((resolve) => { setImmediate(resolve); });
    const ordersDone = quarry.nextEvent('sync_completed', (event) => event.source === 'orders');
    await quarry.request('POST', '/api/sources/orders/sync', { as: 'editor' });
    await ordersDone;
    await quarry.request('POST', '/api/sources/other/sync', { as: 'editor' });
    const events = await feed.waitFor(2);
    expect(events.map((event) => `${String(event.type)}:${String(event.source)}`)).toEqual(['sync_started:other', 'sync_completed:other']);
    feed.socket.close();
  });

  it('drops a client that stops reading, without slowing the others', async () => {
    const slow = await openFeed(quarry.url, { cookie: await quarry.login('viewer') });
    const fast = await openFeed(quarry.url, { cookie: await quarry.login('viewer') });
    (slow.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const padding = 'x'.repeat(900);
    for (let index = 0; index < 20_000 && quarry.app.websocketHub.size > 1; index++) {
      quarry.ctx.events.publish({ type: 'sync_failed', source: 'orders', error: padding });
      if (index % 500 === 0) await new Promise((resolve) => { setImmediate(resolve); });
    }
    expect(quarry.app.websocketHub.size).toBe(1);
    expect(fast.socket.readyState).toBe(WebSocket.OPEN);
    fast.socket.close();
  });

  it('closes the socket with 4401 when its session logs out, and on a bad subscribe message with 1008', async () => {
    const cookie = await quarry.login('editor');
    const feed = await openFeed(quarry.url, { cookie });
    await quarry.request('POST', '/api/auth/logout', { cookie, headers: { 'x-requested-with': 'XMLHttpRequest' } });
    expect(await feed.closed).toEqual({ code: 4401, reason: 'Session ended' });

    const other = await openFeed(quarry.url, { cookie: await quarry.login('viewer') });
    other.socket.send('not json');
    expect((await other.closed).code).toBe(1008);
  });
});
