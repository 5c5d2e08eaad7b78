// Authenticated API throughput: GET /api/status with a session cookie and with an API key, beside the
// same server's unauthenticated 401 path as the baseline. 50 connections, 10 s each.
import autocannon from 'autocannon';
import { startBenchServer } from './bench-server.ts';

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
  const server = await startBenchServer();
  try {
    const url = `${server.base}/api/status`;
    const baseline = await measure('unauthenticated 401 (baseline)', url, {});
    const session = await measure('GET /api/status with session cookie', url, { cookie: server.cookie });
    const apiKey = await measure('GET /api/status with API key', url, { authorization: `Bearer ${server.key}` });
    return {
      benchmark: 'api',
      baseline,
      cases: [session, apiKey].map((figure) => ({ figure, ratio: figure.requestsPerSecond / baseline.requestsPerSecond })),
    };
  } finally {
    await server.close();
  }
}
