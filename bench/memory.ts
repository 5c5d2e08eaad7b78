// Peak memory of loading 1,000 small CSV files (1,000 rows each): `quarry sync` as a new process, beside the same
// files loaded into a lake by plain DuckDB in a Node process of its own (bench/memory-baseline.ts: one CREATE TABLE AS
// over all of them), each measured as its process's high-water mark of resident memory.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { initProject } from '../src/cli/init.ts';
import { QUARRY_BIN } from '../test/support/quarry-process.ts';
import { runDuckDb, type ReportedBenchResult } from './measure.ts';

const FILES = 1000;
const ROWS_PER_FILE = 1000;
const NODE_BIN = path.join(import.meta.dirname, '..', 'bin', 'node');


/** Runs a command to its end and answers its process's peak resident memory in MB (VmHWM, read until it exits). */
async function peakMegabytes(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let peakKb = 0;
  const state = { done: false };
  void exited.then(() => { state.done = true; });
  while (!state.done) {
    try {
      const status = readFileSync(`/proc/${String(child.pid)}/status`, 'utf8');
      peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
    } catch {
      // Gone between the check and the read: the last reading stands.
    }
    await delay(20);
  }
  const code = await exited;
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${String(code)}): ${stderr}`);
  return peakKb / 1024;
}

export async function runMemoryBenchmark(): Promise<ReportedBenchResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'quarry-bench-memory-'));
  try {
    const project = path.join(dir, 'quarry');
    const env = { ...process.env, QUARRY_ADMIN_PASSWORD: 'bench-password-1', DBT_SEND_ANONYMOUS_USAGE_STATS: 'false' };
    await initProject(project, { name: 'bench-memory', adminEmail: 'bench@example.com', nonInteractive: true }, env);
    const small = path.join(project, 'data', 'small');
    mkdirSync(small, { recursive: true });
    await runDuckDb(':memory:', `COPY (SELECT i AS id, i % 1000 AS customer_id, (i % 97) * 1.5 AS amount, (i % 13) * 0.1 AS discount,
      'region_' || (i % 7) AS region, 'product_' || (i % 500) AS product, 'channel_' || (i % 3) AS channel, md5(i::VARCHAR)[:8] AS code,
      DATE '2024-01-01' + (i % 365)::INTEGER AS order_date, TIMESTAMP '2024-01-01' + INTERVAL (i % 100000) SECOND AS created_at,
      i // ${String(ROWS_PER_FILE)} AS file_no
      FROM range(${String(FILES * ROWS_PER_FILE)}) t(i)) TO '${small}' (FORMAT csv, HEADER, PARTITION_BY (file_no), FILENAME_PATTERN 'part_{i}')`);
    writeFileSync(path.join(project, '.quarry', 'sources.yml'), 'sources:\n  - name: small\n    type: local_files\n    local_files: { directory: data/small, file_pattern: "**/*.csv" }\n');

    const baselineDir = path.join(dir, 'baseline');
    mkdirSync(baselineDir);
    const baseline = await peakMegabytes(NODE_BIN, [path.join(import.meta.dirname, 'memory-baseline.ts'), path.join(small, '**', '*.csv'), baselineDir], env);
    const quarry = await peakMegabytes(QUARRY_BIN, ['sync', 'small', '--project', project], env);
    const megabytes = (value: number): string => `${value.toFixed(0)} MB peak RSS`;
    return {
      benchmark: 'memory',
      rows: [
        { name: `plain DuckDB in Node: ${String(FILES)} CSV files of ${String(ROWS_PER_FILE)} rows into a DuckLake lake, one statement (baseline)`, value: megabytes(baseline), ratio: null, ratioText: '1.00 (baseline)' },
        {
          id: 'memory.small_files', name: `quarry sync of the same files, new process (each file's dialect detected alone)`,
          value: megabytes(quarry), ratio: quarry / baseline, ratioText: (quarry / baseline).toFixed(2), peakMb: quarry,
        },
      ],
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
