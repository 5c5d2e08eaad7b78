// `npm run bench`: every benchmark, each figure beside its baseline from the same run.
// `npm run bench -- load mixed-dialects`: only the benchmarks named (api, load, mixed-dialects, connectors,
// transform, websocket, sustained, query); their results go to results/latest-<names>.json, not latest.json.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runApiBenchmark } from './api.ts';
import { runConnectorBenchmarks } from './connectors.ts';
import { runLoadBenchmark } from './load.ts';
import { runMixedDialectBenchmark } from './mixed-dialects.ts';
import { runQueryBenchmark } from './query.ts';
import { runSustainedLoadBenchmark } from './sustained.ts';
import { runTransformBenchmark } from './transform.ts';
import { runWebSocketBenchmark } from './websocket.ts';

const repositoryRoot = path.join(import.meta.dirname, '..');

/** The versions the figures depend on: DuckDB (the Node binding) and the pinned Python tools. */
function versions(): Record<string, string> {
  const pinned = (environment: string, name: string): string => {
    const lock = readFileSync(path.join(repositoryRoot, 'python', 'envs', environment, 'requirements.lock'), 'utf8');
    return new RegExp(`^${name}==(\\S+)`, 'mi').exec(lock)?.[1] ?? 'unknown';
  };
  const duckdb = JSON.parse(readFileSync(path.join(repositoryRoot, 'node_modules', '@duckdb', 'node-api', 'package.json'), 'utf8')) as { version: string };
  return {
    node: process.version, duckdb: duckdb.version, 'dbt-core': pinned('dbt', 'dbt-core'), 'dbt-duckdb': pinned('dbt', 'dbt-duckdb'), dlt: pinned('dlt', 'dlt'),
  };
}

interface Row {
  benchmark: string;
  name: string;
  value: string;
  ratio: string;
}

const BENCHMARKS = ['api', 'load', 'mixed-dialects', 'connectors', 'transform', 'websocket', 'sustained', 'query'] as const;
const only = process.argv.slice(2);
const unknown = only.filter((name) => !(BENCHMARKS as readonly string[]).includes(name));
if (unknown.length > 0) throw new Error(`Unknown benchmark ${unknown.join(', ')}; choose among ${BENCHMARKS.join(', ')}`);
const wanted = (name: (typeof BENCHMARKS)[number]): boolean => only.length === 0 || only.includes(name);

const api = wanted('api') ? await runApiBenchmark() : undefined;
const loads = [
  ...wanted('load') ? await runLoadBenchmark() : [],
  ...wanted('mixed-dialects') ? [await runMixedDialectBenchmark()] : [],
  ...wanted('connectors') ? await runConnectorBenchmarks() : [],
  ...wanted('transform') ? await runTransformBenchmark() : [],
];
const latencies = [
  ...wanted('websocket') ? [await runWebSocketBenchmark()] : [],
  ...wanted('sustained') ? [await runSustainedLoadBenchmark()] : [],
];

const query = wanted('query') ? await runQueryBenchmark() : undefined;

const rows: Row[] = [
  ...api === undefined ? [] : [
    { benchmark: api.benchmark, name: api.baseline.name, value: `${String(api.baseline.requestsPerSecond)} req/s, p50 ${String(api.baseline.p50Ms)} ms, p99 ${String(api.baseline.p99Ms)} ms`, ratio: '1.00 (baseline)' },
    ...api.cases.map(({ figure, ratio }) => ({
      benchmark: api.benchmark, name: figure.name,
      value: `${String(figure.requestsPerSecond)} req/s, p50 ${String(figure.p50Ms)} ms, p99 ${String(figure.p99Ms)} ms`, ratio: ratio.toFixed(2),
    })),
  ],
  ...loads.flatMap((load) => [
    { benchmark: load.benchmark, name: load.baseline.name, value: `${load.baseline.seconds.toFixed(2)} s`, ratio: '1.00 (baseline)' },
    ...load.cases.map(({ figure, ratio }) => ({ benchmark: load.benchmark, name: figure.name, value: `${figure.seconds.toFixed(2)} s`, ratio: ratio.toFixed(3) })),
  ]),
  ...latencies.flatMap((latency) => [
    { benchmark: latency.benchmark, name: latency.baseline.name, value: latency.baseline.detail, ratio: '1.00 (baseline)' },
    ...latency.cases.map(({ figure, ratio }) => ({ benchmark: latency.benchmark, name: figure.name, value: figure.detail, ratio: `${ratio.toFixed(2)} (p99)` })),
  ]),
  ...query === undefined ? [] : query.rows.map((row) => ({ benchmark: query.benchmark, ...row })),
];

const header: Row = { benchmark: 'benchmark', name: 'case', value: 'measured', ratio: 'ratio to baseline' };
const columns = ['benchmark', 'name', 'value', 'ratio'] as const;
const widths = columns.map((column) => Math.max(...[header, ...rows].map((row) => row[column].length)));
const line = (row: Row): string => columns.map((column, index) => row[column].padEnd(widths[index] ?? 0)).join('  ');
const machine = { cores: os.cpus().length, platform: `${os.platform()} ${os.release()}`, versions: versions() };
console.log(`\nQuarry benchmarks · ${String(machine.cores)} cores · ${Object.entries(machine.versions).map(([name, version]) => `${name} ${version}`).join(' · ')}\n`);
console.log(line(header));
for (const row of rows) console.log(line(row));

const resultsDir = path.join(import.meta.dirname, 'results');
mkdirSync(resultsDir, { recursive: true });
writeFileSync(path.join(resultsDir, only.length === 0 ? 'latest.json' : `latest-${only.join('-')}.json`), `${JSON.stringify({
  machine,
  results: { api, loads, latencies, query },
}, null, 2)}\n`);
