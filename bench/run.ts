// `npm run bench`: every benchmark, each figure beside its baseline from the same run.
// `npm run bench -- load mixed-dialects`: only the benchmarks named (api, load, mixed-dialects, connectors (= rest and postgres),
// objects, deployment, transform, models, memory, websocket, sustained, query); their results go to results/latest-<names>.json, not latest.json.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runApiBenchmark, type Figure as ApiFigure } from './api.ts';
import { runPostgresBenchmark, runRestBenchmark } from './connectors.ts';
import { runLoadBenchmark } from './load.ts';
import { runMixedDialectBenchmark } from './mixed-dialects.ts';
import { runMemoryBenchmark } from './memory.ts';
import { runModelsBenchmark } from './models.ts';
import { runObjectStorageBenchmark } from './object-storage.ts';
import { runDeploymentBenchmark } from './deployment.ts';
import { runQueryBenchmark } from './query.ts';
import { runSustainedLoadBenchmark } from './sustained.ts';
import { TARGETS } from './targets.ts';
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

/** One printed line and one entry of latest.json's `rows`. */
interface Row {
  id: string | null;
  benchmark: string;
  name: string;
  value: string;
  /** Null on a baseline row. */
  ratio: number | null;
  ratioText: string;
  target: string | null;
  /** Null where the row has no target. */
  pass: boolean | null;
}

/** A row with its target from bench/targets.ts, if its id has one. */
function row(fields: { id?: string | undefined; benchmark: string; name: string; value: string; ratio: number | null; ratioText: string; p99Ms?: number; peakMb?: number }): Row {
  const target = fields.id === undefined ? undefined : TARGETS[fields.id];
  const pass = target === undefined || fields.ratio === null ? null : target.met({ ratio: fields.ratio, p99Ms: fields.p99Ms, peakMb: fields.peakMb });
  return {
    id: fields.id ?? null, benchmark: fields.benchmark, name: fields.name, value: fields.value, ratio: fields.ratio, ratioText: fields.ratioText,
    target: target?.goal ?? null, pass,
  };
}

const BENCHMARKS = ['api', 'load', 'mixed-dialects', 'connectors', 'rest', 'postgres', 'objects', 'deployment', 'transform', 'models', 'memory', 'websocket', 'sustained', 'query'] as const;
const only = process.argv.slice(2);
const unknown = only.filter((name) => !(BENCHMARKS as readonly string[]).includes(name));
if (unknown.length > 0) throw new Error(`Unknown benchmark ${unknown.join(', ')}; choose among ${BENCHMARKS.join(', ')}`);
const wanted = (name: (typeof BENCHMARKS)[number]): boolean => only.length === 0 || only.includes(name);

const api = wanted('api') ? await runApiBenchmark() : undefined;
const fileLoads = wanted('load') ? await runLoadBenchmark() : undefined;
const loads = [
  ...fileLoads?.loads ?? [],
  ...wanted('mixed-dialects') ? [await runMixedDialectBenchmark()] : [],
  ...wanted('connectors') || wanted('rest') ? [await runRestBenchmark()] : [],
  ...wanted('connectors') || wanted('postgres') ? [await runPostgresBenchmark()] : [],
  ...wanted('objects') ? await runObjectStorageBenchmark() : [],
  ...wanted('deployment') ? [await runDeploymentBenchmark()] : [],
  ...wanted('transform') ? await runTransformBenchmark() : [],
  ...wanted('models') ? [await runModelsBenchmark()] : [],
];
const latencies = [
  ...wanted('websocket') ? [await runWebSocketBenchmark()] : [],
  ...wanted('sustained') ? [await runSustainedLoadBenchmark()] : [],
];

const memory = wanted('memory') ? await runMemoryBenchmark() : undefined;
const query = wanted('query') ? await runQueryBenchmark() : undefined;
const reported = [...fileLoads?.reported ?? [], ...memory === undefined ? [] : [memory], ...query === undefined ? [] : [query]];

const apiValue = (figure: ApiFigure): string =>
  `${String(figure.requestsPerSecond)} req/s, p50 ${String(figure.p50Ms)} ms, p99 ${String(figure.p99Ms)} ms, server CPU ${figure.serverCpuMicrosPerRequest.toFixed(1)} µs/req${figure.non2xx > 0 ? `, ${String(figure.non2xx)} non-2xx` : ''}`;
const rows: Row[] = [
  ...api === undefined ? [] : [
    row({ id: api.baseline.id, benchmark: api.benchmark, name: api.baseline.name, value: apiValue(api.baseline), ratio: null, ratioText: '1.00 (baseline)' }),
    ...api.cases.map(({ figure, ratio }) => row({
      id: figure.id, benchmark: api.benchmark, name: figure.name, value: apiValue(figure), ratio, ratioText: ratio.toFixed(2), p99Ms: figure.p99Ms,
    })),
  ],
  ...loads.flatMap((load) => [
    row({ id: load.baseline.id, benchmark: load.benchmark, name: load.baseline.name, value: `${load.baseline.seconds.toFixed(2)} s`, ratio: null, ratioText: '1.00 (baseline)' }),
    ...load.cases.map(({ figure, ratio }) => row({
      id: figure.id, benchmark: load.benchmark, name: figure.name, value: `${figure.seconds.toFixed(2)} s`, ratio, ratioText: ratio.toFixed(3),
    })),
  ]),
  ...latencies.flatMap((latency) => [
    row({ benchmark: latency.benchmark, name: latency.baseline.name, value: latency.baseline.detail, ratio: null, ratioText: '1.00 (baseline)' }),
    ...latency.cases.map(({ figure, ratio }) => row({ benchmark: latency.benchmark, name: figure.name, value: figure.detail, ratio, ratioText: `${ratio.toFixed(2)} (p99)` })),
  ]),
  ...reported.flatMap((result) => result.rows.map((entry) => row({ benchmark: result.benchmark, ...entry }))),
];

const printed = (entry: Row): Record<(typeof columns)[number], string> => ({
  benchmark: entry.benchmark, name: entry.name, value: entry.value, ratio: entry.ratioText, target: entry.target ?? '-',
  mark: entry.pass === null ? '' : entry.pass ? 'pass' : 'MISS',
});
const columns = ['benchmark', 'name', 'value', 'ratio', 'target', 'mark'] as const;
const header: Record<(typeof columns)[number], string> = { benchmark: 'benchmark', name: 'case', value: 'measured', ratio: 'ratio to baseline', target: 'target', mark: '' };
const lines = [header, ...rows.map(printed)];
const widths = columns.map((column) => Math.max(...lines.map((line) => line[column].length)));
const format = (line: Record<(typeof columns)[number], string>): string => columns.map((column, index) => line[column].padEnd(widths[index] ?? 0)).join('  ').trimEnd();
const machine = { cores: os.cpus().length, platform: `${os.platform()} ${os.release()}`, versions: versions() };
console.log(`\nQuarry benchmarks · ${String(machine.cores)} cores · ${Object.entries(machine.versions).map(([name, version]) => `${name} ${version}`).join(' · ')}\n`);
for (const line of lines) console.log(format(line));
const targeted = rows.filter((entry) => entry.pass !== null);
if (targeted.length > 0) console.log(`\n${String(targeted.filter((entry) => entry.pass === true).length)} of ${String(targeted.length)} targets met`);

const resultsDir = path.join(import.meta.dirname, 'results');
mkdirSync(resultsDir, { recursive: true });
writeFileSync(path.join(resultsDir, only.length === 0 ? 'latest.json' : `latest-${only.join('-')}.json`), `${JSON.stringify({
  machine,
  rows: rows.map((entry) => ({
    id: entry.id, benchmark: entry.benchmark, case: entry.name, measured: entry.value, ratio: entry.ratio, target: entry.target, pass: entry.pass,
  })),
  results: { api, loads, latencies, reported },
}, null, 2)}\n`);
