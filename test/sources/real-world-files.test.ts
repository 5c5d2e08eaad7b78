import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatOf } from '../../src/sources/index.ts';
import { quoteLiteral } from '../../src/warehouse/index.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { filesFailedOfLastSync, syncAndWait } from '../support/sync.ts';

const CORPUS = path.join(import.meta.dirname, '..', 'fixtures', 'real-world');
const BATCH = 120;
/** Syncs of a few hundred files on 2 busy cores, into a lake table whose column types widen (a rewrite) as files arrive: 8-12 min a case in CI. */
const TIMEOUT_MS = 1_500_000;

/** Every loadable file of the corpus, relative to it. */
const corpusFiles = readdirSync(CORPUS, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && formatOf(entry.name) !== undefined)
  .map((entry) => path.relative(CORPUS, path.join(entry.parentPath, entry.name)))
  .sort();

/** What DuckDB itself reads from each file alone: its row count, or undefined when it cannot read the file. */
async function duckdbCounts(files: readonly string[]): Promise<Map<string, number | undefined>> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const counts = new Map<string, number | undefined>();
  try {
    for (const file of files) {
      const reader = formatOf(file) === 'json' ? 'read_json' : 'read_csv';
      try {
        // A table made of every column, as a user would: count(*) alone lets DuckDB skip parsing the values.
        await connection.run(`CREATE OR REPLACE TEMP TABLE alone AS SELECT * FROM ${reader}(${quoteLiteral(path.join(CORPUS, file))})`);
        const result = await connection.runAndReadAll('SELECT count(*)::BIGINT AS n FROM alone');
        counts.set(file, Number(result.getRowObjects()[0]?.n));
      } catch {
        counts.set(file, undefined);
      }
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  return counts;
}

describe('real-world CSV and JSON files from public test suites', () => {
  let quarry: TestQuarry;
  let expected: Map<string, number | undefined>;

  beforeAll(async () => {
    quarry = await startQuarry({
      sourcesYaml: [
        'sources:',
        '  - name: corpus', '    type: local_files', '    local_files:', '      directory: data/corpus', '      file_pattern: "**/*"',
        '  - name: mixed', '    type: local_files', '    local_files:', '      directory: data/mixed', '      file_pattern: "**/*"', '',
      ].join('\n'),
    });
    expected = await duckdbCounts(corpusFiles);
  }, TIMEOUT_MS);
  afterAll(async () => {
    await quarry.close();
  });

  /** Rows per file as the source's raw table holds them, by path relative to the source's folder. */
  async function rowsPerFile(source: string): Promise<Map<string, number>> {
    const folder = path.join(quarry.dir, 'data', source);
    const rows = await quarry.query(`SELECT _quarry_file AS file, count(*)::BIGINT AS n FROM raw_${source}.${source} GROUP BY 1`);
    return new Map(rows.map((row) => [path.relative(folder, String(row.file)), Number(row.n)]));
  }

  async function unreadableFiles(source: string): Promise<string[]> {
    const folder = path.join(quarry.dir, 'data', source);
    const listing = await quarry.request('GET', `/api/sources/${source}/csv-files`, { as: 'viewer' });
    return (listing.json.files as { path: string; status: string }[])
      .filter((file) => file.status === 'unreadable').map((file) => path.relative(folder, file.path)).sort();
  }

  const readable = (files: readonly string[]): Map<string, number> =>
    new Map(files.flatMap((file) => { const n = expected.get(file); return n === undefined ? [] : [[file, n] as const]; }));
  const unreadable = (files: readonly string[]): string[] => files.filter((file) => expected.get(file) === undefined).sort();

  it('holds a few hundred files, some of which DuckDB cannot read', () => {
    expect(corpusFiles.length).toBeGreaterThan(300);
    expect(unreadable(corpusFiles).length).toBeGreaterThan(0);
    expect(readable(corpusFiles).size).toBeGreaterThan(300);
  });

  it('loads each file into an empty source with exactly the rows DuckDB reads from it alone, and lists the others as unreadable', async () => {
    cpSync(CORPUS, path.join(quarry.dir, 'data', 'corpus'), { recursive: true });
    rmSync(path.join(quarry.dir, 'data', 'corpus', 'SOURCES.md'));
    const end = await syncAndWait(quarry, 'corpus');
    const bad = unreadable(corpusFiles);
    expect(end.type).toBe('sync_completed');
    expect(filesFailedOfLastSync(quarry, 'corpus')).toBe(bad.length);
    expect(Object.fromEntries(await rowsPerFile('corpus'))).toEqual(Object.fromEntries([...readable(corpusFiles)].filter(([, n]) => n > 0)));
    expect(await unreadableFiles('corpus')).toEqual(bad);
  }, TIMEOUT_MS);

  it('adds each file to a source that already holds other files with the same rows, and delete + sync gives back the count before', async () => {
    const folder = path.join(quarry.dir, 'data', 'mixed');
    mkdirSync(folder, { recursive: true });
    cpSync(path.join(CORPUS, 'max-mapper', 'csv-spectrum', 'csvs', 'simple.csv'), path.join(folder, 'base', 'simple.csv'));
    cpSync(path.join(CORPUS, 'frictionlessdata', 'frictionless-py', 'data', 'table.json'), path.join(folder, 'base', 'table.json'));
    const baseEnd = await syncAndWait(quarry, 'mixed');
    expect(baseEnd.type).toBe('sync_completed');
    const base = await rowsPerFile('mixed');
    const baseRows = [...base.values()].reduce((sum, n) => sum + n, 0);

    for (let start = 0; start < corpusFiles.length; start += BATCH) {
      const batch = corpusFiles.slice(start, start + BATCH);
      for (const file of batch) cpSync(path.join(CORPUS, file), path.join(folder, 'added', file));
      const added = await syncAndWait(quarry, 'mixed');
      const bad = unreadable(batch);
      expect(added.type).toBe('sync_completed');
      expect(filesFailedOfLastSync(quarry, 'mixed')).toBe(bad.length);
      const perFile = await rowsPerFile('mixed');
      const expectedRows = [...readable(batch)].filter(([, n]) => n > 0).map(([file, n]) => [path.join('added', file), n] as const);
      expect(Object.fromEntries(perFile)).toEqual(Object.fromEntries([...base, ...expectedRows]));
      expect(await unreadableFiles('mixed')).toEqual(bad.map((file) => path.join('added', file)).sort());

      rmSync(path.join(folder, 'added'), { recursive: true });
      const removed = await syncAndWait(quarry, 'mixed');
      expect(removed).toEqual(expect.objectContaining({ type: 'sync_completed', rows: baseRows }));
      expect(await rowsPerFile('mixed')).toEqual(base);
    }
  }, TIMEOUT_MS);
});
