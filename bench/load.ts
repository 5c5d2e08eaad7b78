// File loading: a local_files sync of a 5M-row, 10-column CSV beside DuckDB's own CREATE TABLE AS read_csv of the
// same file into a new lake (the baseline); the size of the project's lake beside DuckDB's own file of the same
// table; and an incremental re-sync of 1 changed file among 1,000, beside their full load and beside the same
// re-sync in a project whose lake also holds the 5M-row table.
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { initProject } from '../src/cli/init.ts';
import { closeContext, createContext } from '../src/context.ts';
import { createLogger } from '../src/logger.ts';
import { openLakeForWriting } from '../src/warehouse/lake-connection.ts';
import { folderBytes, lakeIn, median, type ReportedBenchResult, runDuckDb, settled, spread, syncAndWait, timed, writeWideCsv } from './measure.ts';

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
/** Rounds of the 5M-row load and its baseline, in alternating order; the medians are the figures. */
const LOAD_ROUNDS = Number(process.env.QUARRY_BENCH_LOAD_ROUNDS ?? 3);
/** Re-syncs after one changed file, per project; their median is the figure. */
const RESYNCS = Number(process.env.QUARRY_BENCH_RESYNCS ?? 5);



const megabytes = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

/** DuckDB alone: the CSV into a new lake made as Quarry makes one (the load baseline). */
async function duckDbIntoLake(dir: string, csv: string): Promise<number> {
  const lakeDir = path.join(dir, 'baseline-lake');
  const seconds = await timed(async () => {
    const lake = await openLakeForWriting(lakeIn(lakeDir));
    try {
      await lake.connection.run(`CREATE TABLE t AS SELECT * FROM read_csv('${csv}')`);
    } finally {
      await lake.close();
    }
  });
  rmSync(lakeDir, { recursive: true, force: true });
  return seconds;
}

/** DuckDB alone: the CSV into its own file (the size baseline). */
async function duckDbIntoFile(dir: string, csv: string): Promise<{ fileSeconds: number; fileBytes: number }> {
  const file = path.join(dir, 'baseline.duckdb');
  const fileSeconds = await timed(() => runDuckDb(file, `CREATE TABLE t AS SELECT * FROM read_csv('${csv}')`));
  const fileBytes = statSync(file).size;
  rmSync(file, { force: true });
  return { fileSeconds, fileBytes };
}

export async function runLoadBenchmark(): Promise<{ loads: LoadBenchResult[]; reported: ReportedBenchResult[] }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'quarry-bench-load-'));
  try {
    const env = { QUARRY_ADMIN_PASSWORD: 'bench-password-1' };
    await initProject(dir, { name: 'bench', adminEmail: 'bench@example.com', nonInteractive: true }, env);
    const bigDir = path.join(dir, 'data', 'big');
    const smallDir = path.join(dir, 'data', 'small');
    mkdirSync(bigDir, { recursive: true });
    mkdirSync(smallDir, { recursive: true });
    const bigCsv = path.join(bigDir, 'big.csv');
    await writeWideCsv(bigCsv, ROWS);
    await runDuckDb(':memory:', `COPY (SELECT i AS id, i % 1000 AS customer_id, random() * 1000 AS amount, 'name-' || i AS name, i // 5000 AS file_no
      FROM range(${String(SMALL_FILES * 5000)}) t(i)) TO '${smallDir}' (FORMAT csv, HEADER, PARTITION_BY (file_no), FILENAME_PATTERN 'part_{i}')`);
    writeFileSync(path.join(dir, '.quarry', 'sources.yml'), [
      'sources:',
      '  - name: big', '    type: local_files', '    local_files: { directory: data/big, file_pattern: "*.csv" }',
      '  - name: small', '    type: local_files', '    local_files: { directory: data/small, file_pattern: "**/*.csv" }',
      '',
    ].join('\n'));

    const baseline = await duckDbIntoFile(dir, bigCsv);

    // The same 1,000 files also load into a project of their own, so the re-sync beside the 5M-row table has
    // a twin that differs only in what else the lake holds.
    const smallOnly = path.join(dir, 'small-only');
    await initProject(smallOnly, { name: 'bench-small', adminEmail: 'bench@example.com', nonInteractive: true }, env);
    writeFileSync(path.join(smallOnly, '.quarry', 'sources.yml'), [
      'sources:', '  - name: small', '    type: local_files', `    local_files: { directory: ${JSON.stringify(smallDir)}, file_pattern: "**/*.csv" }`, '',
    ].join('\n'));

    const ctx = await createContext({ projectDir: dir, env, log: createLogger({ level: 'silent' }) });
    const smallCtx = await createContext({ projectDir: smallOnly, env, log: createLogger({ level: 'silent' }) });
    try {
      // The first sync makes the table (as the baseline's CTAS does); later rounds are full refreshes, which drop and remake it.
      const loads: { baseline: number[]; sync: number[] } = { baseline: [], sync: [] };
      let lakeBytes = 0;
      for (let round = 0; round < LOAD_ROUNDS; round++) {
        const alone = async (): Promise<void> => { loads.baseline.push(await duckDbIntoLake(dir, bigCsv)); };
        const sync = async (): Promise<void> => {
          loads.sync.push(await timed(() => syncAndWait(ctx, 'big', round > 0)));
          if (round === 0) lakeBytes = folderBytes(ctx.paths.warehouseDir);
          await settled(ctx);
        };
        for (const load of round % 2 === 0 ? [alone, sync] : [sync, alone]) await load();
      }
      const lakeSeconds = median(loads.baseline);
      const syncSeconds = median(loads.sync);
      const fullAlone = await timed(() => syncAndWait(smallCtx, 'small', true));
      await settled(smallCtx);
      await syncAndWait(ctx, 'small', true);
      await settled(ctx);
      // Each round changes one file, then re-syncs both projects (in alternating order, so both see the same load).
      const resyncs: { alone: number[]; besideLarge: number[] } = { alone: [], besideLarge: [] };
      for (let round = 0; round < RESYNCS; round++) {
        writeFileSync(path.join(smallDir, `file_no=${String(round)}`, 'part_0.csv'), `id,customer_id,amount,name\n${String(round)},2,3.5,changed\n`);
        const alone = async (): Promise<void> => {
          resyncs.alone.push(await timed(() => syncAndWait(smallCtx, 'small')));
          await settled(smallCtx);
        };
        const besideLarge = async (): Promise<void> => {
          resyncs.besideLarge.push(await timed(() => syncAndWait(ctx, 'small')));
          await settled(ctx);
        };
        for (const resync of round % 2 === 0 ? [alone, besideLarge] : [besideLarge, alone]) await resync();
      }
      const resyncAlone = median(resyncs.alone);
      const resyncBesideLarge = median(resyncs.besideLarge);
      return {
        loads: [
          {
            benchmark: 'load',
            baseline: { name: `DuckDB CREATE TABLE AS read_csv into a new lake, ${String(ROWS)} rows, median of ${String(LOAD_ROUNDS)} (${spread(loads.baseline)}) (baseline)`, seconds: lakeSeconds },
            cases: [
              { figure: { id: 'load.local_files', name: `local_files sync of the same file, median of ${String(LOAD_ROUNDS)} (${spread(loads.sync)})`, seconds: syncSeconds }, ratio: syncSeconds / lakeSeconds },
              { figure: { name: 'for reference: DuckDB CREATE TABLE AS read_csv into its own file, once', seconds: baseline.fileSeconds }, ratio: baseline.fileSeconds / lakeSeconds },
            ],
          },
          {
            benchmark: 'incremental',
            baseline: { name: `full sync of ${String(SMALL_FILES)} small files in a project of their own (baseline)`, seconds: fullAlone },
            cases: [{ figure: { name: `re-sync after 1 file changed, median of ${String(RESYNCS)} (${spread(resyncs.alone)})`, seconds: resyncAlone }, ratio: resyncAlone / fullAlone }],
          },
          {
            benchmark: 'incremental',
            baseline: { name: 'that re-sync after 1 file changed, in the project of its own (baseline)', seconds: resyncAlone },
            cases: [{
              figure: { id: 'incremental.beside_large', name: `the same re-sync beside the ${String(ROWS)}-row table, median of ${String(RESYNCS)} (${spread(resyncs.besideLarge)})`, seconds: resyncBesideLarge },
              ratio: resyncBesideLarge / resyncAlone,
            }],
          },
        ],
        reported: [{
          benchmark: 'size',
          rows: [
            { name: `DuckDB's own file of the ${String(ROWS)}-row table (baseline)`, value: megabytes(baseline.fileBytes), ratio: null, ratioText: '1.00 (baseline)' },
            {
              id: 'size.lake', name: "the project's warehouse/ folder (catalog and Parquet files) after the local_files sync",
              value: megabytes(lakeBytes), ratio: lakeBytes / baseline.fileBytes, ratioText: (lakeBytes / baseline.fileBytes).toFixed(3),
            },
          ],
        }],
      };
    } finally {
      await closeContext(smallCtx);
      await closeContext(ctx);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
