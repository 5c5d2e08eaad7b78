// Authenticated API throughput: GET /api/status with a session cookie and with an API key, beside the
// same server's unauthenticated 401 path as the baseline. 50 connections, 10 s each.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { initProject } from '../src/cli/init.ts';
import { closeContext, createContext } from '../src/context.ts';
import { createLogger } from '../src/logger.ts';
import { buildApp } from '../src/server/index.ts';

export interface Figure {
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
const CONNECTIONS = 50;

async function measure(name: string, url: string, headers: Record<string, string>): Promise<Figure> {
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_SECONDS });
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
  };
}

export async function runApiBenchmark(): Promise<BenchResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'quarry-bench-'));
  const password = 'bench-password-1';
  const env = { QUARRY_ADMIN_PASSWORD: password };
  await initProject(dir, { name: 'bench', adminEmail: 'bench@example.com', nonInteractive: true }, env);
  const ctx = createContext({ projectDir: dir, env, log: createLogger({ level: 'silent' }) });
  const app = await buildApp(ctx);
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    const base = `http://127.0.0.1:${String(address.port)}`;
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@example.com', password }),
    });
    const cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const keyResponse = await fetch(`${base}/api/auth/api-keys`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest', cookie }, body: JSON.stringify({ name: 'bench' }),
    });
    const { key } = await keyResponse.json() as { key: string };
    const url = `${base}/api/status`;
    const baseline = await measure('unauthenticated 401 (baseline)', url, {});
    const session = await measure('GET /api/status with session cookie', url, { cookie });
    const apiKey = await measure('GET /api/status with API key', url, { authorization: `Bearer ${key}` });
    return {
      benchmark: 'api',
      baseline,
      cases: [session, apiKey].map((figure) => ({ figure, ratio: figure.requestsPerSecond / baseline.requestsPerSecond })),
    };
  } finally {
    await app.close();
    await closeContext(ctx);
    await rm(dir, { recursive: true, force: true });
  }
}
