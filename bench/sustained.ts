// Sustained mixed API load: 200 requests/s for 60 s across status, sources, logs, health and models with an API
// key; p99 latency and the error count (which must be 0), beside the same rate on the 401 path (the baseline).
import autocannon from 'autocannon';
import { startBenchServer } from './bench-server.ts';
import type { LatencyBenchResult, LatencyFigure } from './websocket.ts';

const RATE = 200;
const SECONDS = Number(process.env.QUARRY_BENCH_SUSTAINED_SECONDS ?? 60);
const PATHS = ['/api/status', '/api/sources', '/api/logs?limit=100', '/api/health/platform', '/api/transform/models', '/api/watcher/status'];

async function measure(name: string, base: string, headers: Record<string, string>, paths: readonly string[]): Promise<LatencyFigure & { errors: number }> {
  const result = await autocannon({
    url: base, connections: 20, overallRate: RATE, duration: SECONDS,
    requests: paths.map((path) => ({ method: 'GET', path, headers })),
  });
  const errors = result.errors + result.timeouts + (headers.authorization === undefined ? 0 : result.non2xx);
  return {
    name, p99Ms: result.latency.p99, errors,
    detail: `${String(Math.round(result.requests.average))} req/s for ${String(SECONDS)} s, p99 ${String(result.latency.p99)} ms, ${String(errors)} errors`,
  };
}

export async function runSustainedLoadBenchmark(): Promise<LatencyBenchResult> {
  const server = await startBenchServer();
  try {
    const baseline = await measure(`${String(RATE)} req/s unauthenticated 401s (baseline)`, server.base, {}, ['/api/status']);
    const mixed = await measure(`${String(RATE)} req/s mixed API reads with an API key`, server.base, { authorization: `Bearer ${server.key}` }, PATHS);
    if (mixed.errors > 0) throw new Error(`sustained load: ${String(mixed.errors)} requests failed`);
    return { benchmark: 'sustained', baseline, cases: [{ figure: mixed, ratio: mixed.p99Ms / Math.max(1, baseline.p99Ms) }] };
  } finally {
    await server.close();
  }
}
