// Authenticated API throughput: GET /api/status with a session cookie and with an API key, beside a bare Fastify
// route answering the same JSON (the baseline), and the same server's unauthenticated 401 path for reference.
// The servers run in a child process (bench/api-server.ts) so that autocannon, here, does not share their event
// loop. 50 connections, each path warmed for 2 s, then measured for 10 s. QUARRY_BENCH_CPU_PROF=<dir> writes
// the server process's CPU profile there.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import type { ApiServers } from './api-server.ts';

export interface Figure {
  /** Stable across runs, for the targets (bench/targets.ts). */
  id: string;
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

export interface BenchResult {
  benchmark: string;
  baseline: Figure;
  cases: { figure: Figure; ratio: number }[];
}

const DURATION_SECONDS = Number(process.env.QUARRY_BENCH_SECONDS ?? 10);
const WARM_UP_SECONDS = 2;
const CONNECTIONS = 50;
const NODE_BIN = path.join(import.meta.dirname, '..', 'bin', 'node');

async function measure(id: string, name: string, url: string, headers: Record<string, string>): Promise<Figure> {
  await autocannon({ url, headers, connections: CONNECTIONS, duration: WARM_UP_SECONDS });
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_SECONDS });
  return {
    id,
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
  };
}

/** Starts bench/api-server.ts and resolves with what it serves; `stop` closes its stdin and awaits its exit. */
async function startServers(): Promise<{ servers: ApiServers; stop: () => Promise<void> }> {
  const profileDir = process.env.QUARRY_BENCH_CPU_PROF;
  const profiling = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  const child = spawn(NODE_BIN, [...profiling, path.join(import.meta.dirname, 'api-server.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => { child.once('exit', () => { resolve(); }); });
  const stop = async (): Promise<void> => {
    child.stdin.end();
    await exited;
  };
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => { reject(new Error(`bench/api-server.ts exited ${String(code)} before serving`)); });
  });
  return { servers: JSON.parse(firstLine) as ApiServers, stop };
}

export async function runApiBenchmark(): Promise<BenchResult> {
  const { servers, stop } = await startServers();
  try {
    const url = `${servers.quarry}/api/status`;
    const baseline = await measure('api.bare', 'bare Fastify route, same JSON (baseline)', `${servers.bare}/api/status`, {});
    const session = await measure('api.session', 'GET /api/status with session cookie', url, { cookie: servers.cookie });
    const apiKey = await measure('api.api_key', 'GET /api/status with API key', url, { authorization: `Bearer ${servers.key}` });
    const refused = await measure('api.unauthenticated', 'unauthenticated 401 of the same server', url, {});
    return {
      benchmark: 'api',
      baseline,
      cases: [session, apiKey, refused].map((figure) => ({ figure, ratio: figure.requestsPerSecond / baseline.requestsPerSecond })),
    };
  } finally {
    await stop();
  }
}
