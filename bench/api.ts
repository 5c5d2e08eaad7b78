// Authenticated API throughput: GET /api/status with a session cookie and with an API key, beside a bare Fastify
// route answering the same JSON (the baseline), and for reference the same server's unauthenticated 401 path and the
// bare route with only Quarry's session check and security headers (the least a Quarry route does per request).
// The servers run in a child process (bench/api-server.ts) so that autocannon, here, does not share their event
// loop. 50 connections, each path warmed for 2 s, then measured for 10 s, with the server process's CPU time per
// request (steadier than req/s while other work shares the machine). QUARRY_BENCH_CPU_PROF=<dir> writes
// the server process's CPU profile there.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
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
  /** The server process's CPU time (user + system) per request served: steadier than req/s on a shared machine. */
  serverCpuMicrosPerRequest: number;
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

type CpuUsage = () => Promise<NodeJS.CpuUsage>;

async function measure(cpuUsage: CpuUsage, id: string, name: string, url: string, headers: Record<string, string>): Promise<Figure> {
  await autocannon({ url, headers, connections: CONNECTIONS, duration: WARM_UP_SECONDS });
  const before = await cpuUsage();
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_SECONDS });
  const after = await cpuUsage();
  const cpuMicros = after.user - before.user + after.system - before.system;
  return {
    id,
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    serverCpuMicrosPerRequest: cpuMicros / Math.max(result.requests.total, 1),
  };
}

/**
 * Starts bench/api-server.ts and resolves with what it serves; `cpuUsage` asks it for its CPU time so far, `stop`
 * closes its stdin and awaits its exit.
 */
async function startServers(): Promise<{ servers: ApiServers; cpuUsage: CpuUsage; stop: () => Promise<void> }> {
  const profileDir = process.env.QUARRY_BENCH_CPU_PROF;
  const profiling = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  const child = spawn(NODE_BIN, [...profiling, path.join(import.meta.dirname, 'api-server.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => { child.once('exit', () => { resolve(); }); });
  const stop = async (): Promise<void> => {
    child.stdin.end();
    await exited;
  };
  const lines = createInterface({ input: child.stdout });
  const nextLine = async (): Promise<string> => {
    const [line] = await Promise.race([
      once(lines, 'line') as Promise<[string]>,
      exited.then(() => { throw new Error('bench/api-server.ts exited before answering'); }),
    ]);
    return line;
  };
  const servers = JSON.parse(await nextLine()) as ApiServers;
  const cpuUsage: CpuUsage = async () => {
    const answer = nextLine();
    child.stdin.write('\n');
    return JSON.parse(await answer) as NodeJS.CpuUsage;
  };
  return { servers, cpuUsage, stop };
}

export async function runApiBenchmark(): Promise<BenchResult> {
  const { servers, cpuUsage, stop } = await startServers();
  try {
    const url = `${servers.quarry}/api/status`;
    const baseline = await measure(cpuUsage, 'api.bare', 'bare Fastify route, same JSON (baseline)', `${servers.bare}/api/status`, {});
    const least = await measure(cpuUsage, 'api.least', "for reference: the bare route with only Quarry's session check and security headers", `${servers.least}/api/status`, { cookie: servers.cookie });
    const session = await measure(cpuUsage, 'api.session', 'GET /api/status with session cookie', url, { cookie: servers.cookie });
    const apiKey = await measure(cpuUsage, 'api.api_key', 'GET /api/status with API key', url, { authorization: `Bearer ${servers.key}` });
    const refused = await measure(cpuUsage, 'api.unauthenticated', 'unauthenticated 401 of the same server', url, {});
    return {
      benchmark: 'api',
      baseline,
      cases: [least, session, apiKey, refused].map((figure) => ({ figure, ratio: figure.requestsPerSecond / baseline.requestsPerSecond })),
    };
  } finally {
    await stop();
  }
}
