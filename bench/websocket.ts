// WebSocket fan-out: 1,000 clients on /ws (API-key authenticated) and 100 events/s for 10 s, delivery latency
// p99 and slow clients dropped (10 more clients that never read), beside a bare `ws` server broadcasting the
// same messages to as many clients (the baseline).
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket, { WebSocketServer } from 'ws';
import { startBenchServer, type BenchServer } from './bench-server.ts';

export interface LatencyFigure {
  name: string;
  p99Ms: number;
  detail: string;
}

export interface LatencyBenchResult {
  benchmark: string;
  baseline: LatencyFigure;
  cases: { figure: LatencyFigure; ratio: number }[];
}

const CLIENTS = Number(process.env.QUARRY_BENCH_WS_CLIENTS ?? 1000);
const SLOW_CLIENTS = 10;
const EVENTS_PER_SECOND = 100;
const SECONDS = Number(process.env.QUARRY_BENCH_WS_SECONDS ?? 10);

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

interface Fleet {
  latencies: number[];
  delivered: () => number;
  closedByServer: () => number;
  close: () => void;
}

/** Opens `count` reading clients; each records how long after its timestamp an event arrived. */
async function connectFleet(url: string, headers: Record<string, string>, count: number): Promise<Fleet> {
  const latencies: number[] = [];
  const sockets: WebSocket[] = [];
  for (let batch = 0; batch < count; batch += 50) {
    await Promise.all(Array.from({ length: Math.min(50, count - batch) }, () => new Promise<void>((resolve, reject) => {
      const socket = new WebSocket(url, { headers });
      socket.on('open', () => { resolve(); });
      socket.on('error', reject);
      socket.on('message', (data: Buffer) => {
        const event = JSON.parse(data.toString('utf8')) as { timestamp: string };
        latencies.push(Date.now() - Date.parse(event.timestamp));
      });
      sockets.push(socket);
    })));
  }
  return {
    latencies,
    delivered: () => latencies.length,
    closedByServer: () => sockets.filter((socket) => socket.readyState !== WebSocket.OPEN).length,
    close: () => { for (const socket of sockets) socket.terminate(); },
  };
}

/** Clients that complete the handshake and then never read a byte: the server must drop them, not wait. */
async function connectStalledClients(port: number, pathAndQuery: string, headers: Record<string, string>, count: number): Promise<{ close: () => void }> {
  const sockets = await Promise.all(Array.from({ length: count }, () => new Promise<net.Socket>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
      socket.write(`GET ${pathAndQuery} HTTP/1.1\r\nHost: 127.0.0.1:${String(port)}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`
        + `Sec-WebSocket-Key: ${Buffer.from('quarry-bench-key').toString('base64')}\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`);
      socket.once('data', () => { socket.pause(); resolve(socket); });
    });
    socket.on('error', reject);
  })));
  return { close: () => { for (const socket of sockets) socket.destroy(); } };
}

/**
 * The 1,000 events of the run fit in the stalled clients' socket buffers; so, with the readers gone,
 * events are published as fast as possible until the server has dropped every stalled client (or 30 s).
 */
async function floodUntilStalledDropped(server: BenchServer): Promise<{ dropped: number; bytesEach: number }> {
  const deadline = Date.now() + 10_000;
  while (server.connectedClients() > SLOW_CLIENTS && Date.now() < deadline) await sleep(50);
  const before = server.connectedClients();
  const source = 'x'.repeat(63);
  const eventBytes = JSON.stringify({ type: 'sync_started', timestamp: new Date().toISOString(), source }).length;
  let published = 0;
  const stop = Date.now() + 30_000;
  while (server.connectedClients() > 0 && Date.now() < stop) {
    for (let index = 0; index < 200; index++) server.ctx.events.publish({ type: 'sync_started', source });
    published += 200;
    await sleep(1);
  }
  return { dropped: before - server.connectedClients(), bytesEach: published * eventBytes };
}

async function publishFor(seconds: number, publish: (index: number) => void): Promise<void> {
  const total = seconds * EVENTS_PER_SECOND;
  const started = Date.now();
  for (let index = 0; index < total; index++) {
    publish(index);
    const due = started + ((index + 1) * 1000) / EVENTS_PER_SECOND;
    await sleep(Math.max(0, due - Date.now()));
  }
  await sleep(1000);
}

async function bareBroadcast(): Promise<LatencyFigure> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.on('listening', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const fleet = await connectFleet(`ws://127.0.0.1:${String(address.port)}/`, {}, CLIENTS);
  await publishFor(SECONDS, (index) => {
    const message = JSON.stringify({ type: 'sync_started', timestamp: new Date().toISOString(), source: `s${String(index % 20)}` });
    for (const client of server.clients) client.send(message);
  });
  fleet.close();
  await new Promise<void>((resolve) => { server.close(() => { resolve(); }); });
  return { name: `bare ws broadcast to ${String(CLIENTS)} clients (baseline)`, p99Ms: percentile(fleet.latencies, 0.99), detail: `p99 ${String(percentile(fleet.latencies, 0.99))} ms, ${String(fleet.delivered())} delivered` };
}

export async function runWebSocketBenchmark(): Promise<LatencyBenchResult> {
  const baseline = await bareBroadcast();
  const server = await startBenchServer();
  try {
    const headers = { authorization: `Bearer ${server.key}` };
    const fleet = await connectFleet(`ws://127.0.0.1:${String(server.port)}/ws`, headers, CLIENTS);
    const stalled = await connectStalledClients(server.port, '/ws', headers, SLOW_CLIENTS);
    await publishFor(SECONDS, (index) => { server.ctx.events.publish({ type: 'sync_started', source: `s${String(index % 20)}` }); });
    const expected = CLIENTS * SECONDS * EVENTS_PER_SECOND;
    const p99 = percentile(fleet.latencies, 0.99);
    fleet.close();
    const flood = await floodUntilStalledDropped(server);
    const figure: LatencyFigure = {
      name: `Quarry /ws to ${String(CLIENTS)} clients, ${String(EVENTS_PER_SECOND)} events/s, ${String(SLOW_CLIENTS)} stalled`,
      p99Ms: p99,
      detail: `p99 ${String(p99)} ms, ${String(fleet.delivered())} of ${String(expected)} delivered; `
        + `${String(flood.dropped)} of ${String(SLOW_CLIENTS)} stalled dropped once ${(flood.bytesEach / 1024 / 1024).toFixed(1)} MB was unread each`,
    };
    stalled.close();
    return { benchmark: 'websocket', baseline, cases: [{ figure, ratio: p99 / Math.max(1, baseline.p99Ms) }] };
  } finally {
    await server.close();
  }
}
