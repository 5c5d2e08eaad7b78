// File loading: a local_files sync of a 5M-row, 10-column CSV beside DuckDB's own CREATE TABLE AS read_csv
// of the same file (the baseline), and an incremental re-sync of 1 changed file among 1,000 beside their full load.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { initProject } from '../src/cli/init.ts';
import { closeContext, createContext, type AppContext } from '../src/context.ts';
import { createLogger } from '../src/logger.ts';
import { runDuckDb, syncAndWait, timed } from './measure.ts';

export interface TimedCase {
  /** Stable across runs, for a row with a target (bench/targets.ts). */
  id?: string;
  name: string;
  seconds: number;
}

export interface LoadBenchResult {
  benchmark: string;
  baseline: TimedCase;
  cases: { figure: TimedCase; ratio: number }[];
}

const ROWS = Number(process.env.QUARRY_BENCH_LOAD_ROWS ?? 5_000_000);
const SMALL_FILES = 1000;

export async function runLoadBenchmark(): Promise<LoadBenchResult[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'quarry-bench-load-'));
  try {
    const env = { QUARRY_ADMIN_PASSWORD: 'bench-password-1' };
    await initProject(dir, { name: 'bench', adminEmail: 'bench@example.com', nonInteractive: true }, env);
    const bigDir = path.join(dir, 'data', 'big');
    const smallDir = path.join(dir, 'data', 'small');
    mkdirSync(bigDir, { recursive: true });
    mkdirSync(smallDir, { recursive: true });
    const bigCsv = path.join(bigDir, 'big.csv');
    await runDuckDb(':memory:', `COPY (SELECT i AS id, i % 1000 AS customer_id, random() * 1000 AS amount, random() AS score,
      'name-' || (i % 50000) AS name, 'city-' || (i % 300) AS city, md5(i::VARCHAR) AS token, CASE WHEN i % 2 = 0 THEN 'even' ELSE 'odd' END AS parity,
      DATE '2024-01-01' + (i % 700)::INTEGER AS day, TIMESTAMP '2024-01-01' + to_seconds(i) AS created_at
      FROM range(${String(ROWS)}) t(i)) TO '${bigCsv}' (HEADER)`);
    await runDuckDb(':memory:', `COPY (SELECT i AS id, i % 1000 AS customer_id, random() * 1000 AS amount, 'name-' || i AS name, i // 5000 AS file_no
      FROM range(${String(SMALL_FILES * 5000)}) t(i)) TO '${smallDir}' (FORMAT csv, HEADER, PARTITION_BY (file_no), FILENAME_PATTERN 'part_{i}')`);
    writeFileSync(path.join(dir, '.quarry', 'sources.yml'), [
      'sources:',
      '  - name: big', '    type: local_files', '    local_files: { directory: data/big, file_pattern: "*.csv" }',
      '  - name: small', '    type: local_files', '    local_files: { directory: data/small, file_pattern: "**/*.csv" }',
      '',
    ].join('\n'));

    const baselineFile = path.join(dir, 'baseline.duckdb');
    const baselineSeconds = await timed(() => runDuckDb(baselineFile, `CREATE TABLE t AS SELECT * FROM read_csv('${bigCsv}')`));
    rmSync(baselineFile, { force: true });

    // The incremental pair runs in a project of its own, so it measures the ledger and the load; the same pair
    // beside the 5M-row table shows what the replica copy adds when the warehouse is large.
    const smallOnly = path.join(dir, 'small-only');
    await initProject(smallOnly, { name: 'bench-small', adminEmail: 'bench@example.com', nonInteractive: true }, env);
    writeFileSync(path.join(smallOnly, '.quarry', 'sources.yml'), [
      'sources:', '  - name: small', '    type: local_files', `    local_files: { directory: ${JSON.stringify(smallDir)}, file_pattern: "**/*.csv" }`, '',
    ].join('\n'));
    const incrementalPair = async (ctx: AppContext, changedFile: string): Promise<{ full: number; incremental: number }> => {
      const full = await timed(() => syncAndWait(ctx, 'small', true));
      writeFileSync(path.join(smallDir, changedFile), 'id,customer_id,amount,name\n1,2,3.5,changed\n');
      const incremental = await timed(() => syncAndWait(ctx, 'small'));
      return { full, incremental };
    };

    const ctx = createContext({ projectDir: dir, env, log: createLogger({ level: 'silent' }) });
    const smallCtx = createContext({ projectDir: smallOnly, env, log: createLogger({ level: 'silent' }) });
    try {
      const syncSeconds = await timed(() => syncAndWait(ctx, 'big'));
      const alone = await incrementalPair(smallCtx, path.join('file_no=7', 'part_0.csv'));
      const besideBig = await incrementalPair(ctx, path.join('file_no=8', 'part_0.csv'));
      return [
        {
          benchmark: 'load',
          baseline: { name: `DuckDB CREATE TABLE AS read_csv, ${String(ROWS)} rows (baseline)`, seconds: baselineSeconds },
          cases: [{ figure: { id: 'load.local_files', name: 'local_files sync of the same file', seconds: syncSeconds }, ratio: syncSeconds / baselineSeconds }],
        },
        {
          benchmark: 'incremental',
          baseline: { name: `full sync of ${String(SMALL_FILES)} small files (baseline)`, seconds: alone.full },
          cases: [{ figure: { name: 're-sync after 1 file changed', seconds: alone.incremental }, ratio: alone.incremental / alone.full }],
        },
        {
          benchmark: 'incremental',
          baseline: { name: `full sync of the ${String(SMALL_FILES)} files beside the ${String(ROWS)}-row table (baseline)`, seconds: besideBig.full },
          cases: [{ figure: { name: 're-sync after 1 file changed, whole warehouse copied to the replica', seconds: besideBig.incremental }, ratio: besideBig.incremental / besideBig.full }],
        },
      ];
    } finally {
      await closeContext(smallCtx);
      await closeContext(ctx);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
