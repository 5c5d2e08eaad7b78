import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSpreadsheets } from '../../src/sources/xlsx-stand-ins.ts';
import type { SourceFile } from '../../src/sources/list-source-files.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { logMessages, syncAndWait } from '../support/sync.ts';

const READXL = path.resolve(import.meta.dirname, '..', 'fixtures', 'real-world', 'tidyverse', 'readxl');
const IRIS = path.join(READXL, 'tests', 'testthat', 'sheets', 'iris-excel-xlsx.xlsx');
const TYPES = path.join(READXL, 'tests', 'testthat', 'sheets', 'types.xlsx');

const fileOf = (file: string): SourceFile => ({ path: file, name: path.basename(file), size: readFileSync(file).length, mtimeMs: 0, format: 'xlsx' });

describe('spreadsheets read in a process of their own', () => {
  it('converts each one to a Parquet stand-in, and stops one that takes longer than its deadline', async () => {
    const converted = await convertSpreadsheets([fileOf(IRIS)], { deadlineSeconds: 60, signal: AbortSignal.timeout(60_000) });
    const standIn = converted.paths.get(IRIS) ?? '';
    expect(standIn).toMatch(/\.parquet$/);
    expect(existsSync(standIn)).toBe(true);
    await converted.close();
    expect(existsSync(standIn)).toBe(false);

    // Starting Node alone takes longer than this: the process is killed, and the file alone is set aside.
    const late = await convertSpreadsheets([fileOf(IRIS)], { deadlineSeconds: 0.01, signal: AbortSignal.timeout(60_000) });
    expect(late.paths.size).toBe(0);
    expect(late.failures.get(IRIS)?.message).toBe('reading it took longer than 0.01 s (limits.spreadsheet_seconds), so it was stopped');
    await late.close();
  }, 90_000);
});

describe('a local_files source of spreadsheets', () => {
  let quarry: TestQuarry;
  let folder: string;

  beforeAll(async () => {
    quarry = await startQuarry({
      sourcesYaml: 'sources:\n  - name: sheets\n    type: local_files\n    local_files: { directory: data/sheets, file_pattern: "*.xlsx" }\n',
      prepare: (dir) => {
        mkdirSync(path.join(dir, 'data', 'sheets'), { recursive: true });
        copyFileSync(IRIS, path.join(dir, 'data', 'sheets', 'iris.xlsx'));
      },
    });
    folder = path.join(quarry.dir, 'data', 'sheets');
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('loads each sheet\'s rows as DuckDB reads them, each row naming its file', async () => {
    expect(await syncAndWait(quarry, 'sheets')).toMatchObject({ type: 'sync_completed', rows: 150 });
    expect(await quarry.query('SELECT count(*)::INTEGER AS n, count(DISTINCT "Species")::INTEGER AS species FROM raw_sheets.sheets'))
      .toEqual([{ n: 150, species: 3 }]);
    expect(await quarry.query('SELECT DISTINCT _quarry_file AS file FROM raw_sheets.sheets')).toEqual([{ file: path.join(folder, 'iris.xlsx') }]);
  });

  it('sets a broken spreadsheet aside with DuckDB\'s reason and loads the others', async () => {
    writeFileSync(path.join(folder, 'broken.xlsx'), readFileSync(TYPES).subarray(0, 2000));
    expect(await syncAndWait(quarry, 'sheets')).toMatchObject({ type: 'sync_completed', rows: 150 });
    const warning = (await logMessages(quarry, 'sheets', 'WARNING')).find((message) => message.includes('broken.xlsx'));
    expect(warning).toMatch(/^Skipped .*broken\.xlsx: DuckDB cannot read it \(.+\); it is tried again when it changes$/);

    copyFileSync(TYPES, path.join(folder, 'broken.xlsx'));
    expect(await syncAndWait(quarry, 'sheets')).toMatchObject({ type: 'sync_completed', rows: 152 });
  });
});
