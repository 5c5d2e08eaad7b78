// `npm run bench`: every benchmark, each figure beside its baseline from the same run.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runApiBenchmark, type BenchResult } from './api.ts';

const results: BenchResult[] = [await runApiBenchmark()];

const rows = results.flatMap((result) => [
  [result.benchmark, result.baseline.name, result.baseline.requestsPerSecond, result.baseline.p50Ms, result.baseline.p99Ms, '1.00 (baseline)'],
  ...result.cases.map(({ figure, ratio }) => [result.benchmark, figure.name, figure.requestsPerSecond, figure.p50Ms, figure.p99Ms, ratio.toFixed(2)]),
]);
const header = ['benchmark', 'case', 'req/s', 'p50 ms', 'p99 ms', 'ratio to baseline'];
const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => String(row[column]).length)));
const line = (cells: readonly unknown[]): string => cells.map((cell, column) => String(cell).padEnd(widths[column] ?? 0)).join('  ');
console.log(`\nQuarry benchmarks · ${String(os.cpus().length)} cores · Node ${process.version}\n`);
console.log(line(header));
for (const row of rows) console.log(line(row));

const resultsDir = path.join(import.meta.dirname, 'results');
mkdirSync(resultsDir, { recursive: true });
writeFileSync(path.join(resultsDir, 'latest.json'), `${JSON.stringify({
  machine: { cores: os.cpus().length, node: process.version, platform: `${os.platform()} ${os.release()}` },
  results,
}, null, 2)}\n`);
