// Many small files of mixed dialects: a local_files sync of 1,000 CSV files, each written in one of several
// dialects (delimiter, quoting, comment lines, date format), beside DuckDB reading the same files one by one
// into one table (CREATE TABLE AS the first read_csv, then INSERT BY NAME each next), the baseline.
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { initProject } from '../src/cli/init.ts';
import { closeContext, createContext } from '../src/context.ts';
import { createLogger } from '../src/logger.ts';
import { quoteLiteral } from '../src/warehouse/index.ts';
import type { LoadBenchResult } from './load.ts';
import { syncAndWait, timed } from './measure.ts';

const FILES = Number(process.env.QUARRY_BENCH_MIXED_FILES ?? 1000);
const ROWS_PER_FILE = 50;

interface Row { id: number; name: string; amount: number; day: Date }

const iso = (day: Date): string => day.toISOString().slice(0, 10);
const american = (day: Date): string => `${iso(day).slice(5, 7)}-${iso(day).slice(8, 10)}-${iso(day).slice(0, 4)}`;

/** One file's text in dialect `kind`: the same four columns, written the ways files from the wild are. */
function writeDialect(kind: number, rows: readonly Row[]): string {
  switch (kind % 5) {
    case 0: return ['id,name,amount,day', ...rows.map((row) => `${String(row.id)},${row.name},${String(row.amount)},${iso(row.day)}`)].join('\n') + '\n';
    case 1: return ['id;name;amount;day', ...rows.map((row) => `${String(row.id)};${row.name};${String(row.amount)};${iso(row.day)}`)].join('\r\n') + '\r\n';
    case 2: return ['"id"\t"name"\t"amount"\t"day"', ...rows.map((row) => `${String(row.id)}\t"${row.name} ""the ${String(row.id % 7)}"""\t${String(row.amount)}\t${iso(row.day)}`)].join('\n') + '\n';
    case 3: return ['# exported by the shop', '# one row per order', 'id|name|amount|day', ...rows.map((row) => `${String(row.id)}|${row.name}|${String(row.amount)}|${iso(row.day)}`)].join('\n') + '\n';
    default: return ['id,name,amount,day', ...rows.map((row) => `${String(row.id)},"${row.name}, ltd",${String(row.amount)},${american(row.day)}`)].join('\n') + '\n';
  }
}

async function readOneByOne(databaseFile: string, files: readonly string[]): Promise<void> {
  const instance = await DuckDBInstance.create(databaseFile);
  try {
    const connection = await instance.connect();
    await connection.run('BEGIN');
    for (const [index, file] of files.entries()) {
      await connection.run(index === 0
        ? `CREATE TABLE t AS SELECT * FROM read_csv(${quoteLiteral(file)})`
        : `INSERT INTO t BY NAME SELECT * FROM read_csv(${quoteLiteral(file)})`);
    }
    await connection.run('COMMIT');
    connection.closeSync();
  } finally {
    instance.closeSync();
  }
}

export async function runMixedDialectBenchmark(): Promise<LoadBenchResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'quarry-bench-mixed-'));
  try {
    const env = { QUARRY_ADMIN_PASSWORD: 'bench-password-1' };
    await initProject(dir, { name: 'bench-mixed', adminEmail: 'bench@example.com', nonInteractive: true }, env);
    const folder = path.join(dir, 'data', 'mixed');
    mkdirSync(folder, { recursive: true });
    const files: string[] = [];
    for (let file = 0; file < FILES; file++) {
      const rows = Array.from({ length: ROWS_PER_FILE }, (_, index): Row => {
        const id = file * ROWS_PER_FILE + index;
        return { id, name: `customer ${String(id % 997)}`, amount: (id % 10_000) / 100, day: new Date(Date.UTC(2024, 0, 1 + (id % 700))) };
      });
      const name = path.join(folder, `part-${String(file).padStart(4, '0')}.csv`);
      writeFileSync(name, writeDialect(file, rows));
      files.push(name);
    }
    writeFileSync(path.join(dir, '.quarry', 'sources.yml'), [
      'sources:', '  - name: mixed', '    type: local_files', '    local_files: { directory: data/mixed, file_pattern: "*.csv" }', '',
    ].join('\n'));

    const baselineSeconds = await timed(() => readOneByOne(path.join(dir, 'baseline.duckdb'), files));
    const ctx = await createContext({ projectDir: dir, env, log: createLogger({ level: 'silent' }) });
    try {
      const syncSeconds = await timed(() => syncAndWait(ctx, 'mixed'));
      const rows = (await ctx.store.jobs.latest('sync', 'mixed'))?.rows;
      if (rows !== FILES * ROWS_PER_FILE) throw new Error(`The sync loaded ${String(rows)} rows, not ${String(FILES * ROWS_PER_FILE)}`);
      return {
        benchmark: 'mixed dialects',
        baseline: { name: `DuckDB reading ${String(FILES)} small files of 5 dialects one by one into one table (baseline)`, seconds: baselineSeconds },
        cases: [{ figure: { name: 'local_files sync of the same files', seconds: syncSeconds }, ratio: syncSeconds / baselineSeconds }],
      };
    } finally {
      await closeContext(ctx);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
