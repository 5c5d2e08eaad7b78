import { cpSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataRoots } from '../../src/config/index.ts';
import { formatOf, syncFileSource, type SyncOutcome } from '../../src/sources/index.ts';
import type { LedgerEntry } from '../../src/store/index.ts';
import { extensionFile, LakeWriter, quoteLiteral, type DuckDBConnection } from '../../src/warehouse/index.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { filesFailedOfLastSync, syncAndWait } from '../support/sync.ts';

const CORPUS = path.join(import.meta.dirname, '..', 'fixtures', 'real-world');
/** One lake table per upstream test suite: files of one project share a table, as a user's files would. */
const SUITE_DEPTH = 2;
/** The suites small enough to also go through the HTTP API end to end. */
const END_TO_END_SUITES = ['max-mapper/csv-spectrum', 'okfn/messytables'];
const BASE_FILES = ['max-mapper/csv-spectrum/csvs/simple.csv', 'frictionlessdata/frictionless-py/data/table.json'];
const TIMEOUT_MS = 300_000;

/** Every loadable file of the corpus, relative to it. */
const corpusFiles = readdirSync(CORPUS, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && formatOf(entry.name) !== undefined)
  .map((entry) => path.relative(CORPUS, path.join(entry.parentPath, entry.name)))
  .sort();
const suiteOf = (file: string): string => file.split(path.sep).slice(0, SUITE_DEPTH).join('/');
const suites = [...new Set(corpusFiles.map(suiteOf))].sort();
const filesOf = (suite: string): string[] => corpusFiles.filter((file) => suiteOf(file) === suite);

/** What DuckDB itself reads from each file alone: its row count, or undefined when it cannot read the file. */
async function duckdbCounts(files: readonly string[]): Promise<Map<string, number | undefined>> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const counts = new Map<string, number | undefined>();
  await connection.run(`LOAD ${quoteLiteral(extensionFile('excel'))}`);
  try {
    for (const file of files) {
      const reader = { json: 'read_json', xlsx: 'read_xlsx', csv: 'read_csv', parquet: 'read_parquet' }[formatOf(file) ?? 'csv'];
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

const expected = await duckdbCounts(corpusFiles);
/** Files with rows, with DuckDB's count of each: a file of no rows leaves nothing in the table to count. */
const withRows = (files: readonly string[], under: string): Record<string, number> => Object.fromEntries(files.flatMap((file) => {
  const rows = expected.get(file);
  return rows === undefined || rows === 0 ? [] : [[path.join(under, file), rows] as const];
}));
const unreadable = (files: readonly string[]): string[] => files.filter((file) => expected.get(file) === undefined).sort();

describe('the real-world corpus of CSV and JSON files from public test suites', () => {
  it('holds a few hundred files, some of which DuckDB cannot read', () => {
    expect(corpusFiles.length).toBeGreaterThan(300);
    expect(unreadable(corpusFiles).length).toBeGreaterThan(0);
    expect(corpusFiles.length - unreadable(corpusFiles).length).toBeGreaterThan(300);
    expect(suites.length).toBeGreaterThan(5);
  });
});

/** A file source synced straight through the loader, as a sync job runs it, into a lake of its own. */
class LoaderLake {
  readonly root = realpathSync(mkdtempSync(path.join(tmpdir(), 'quarry-corpus-')));
  readonly files = path.join(this.root, 'files');
  readonly #writer = new LakeWriter({
    catalog: { kind: 'sqlite', file: path.join(this.root, 'catalog.sqlite') }, dataPath: `${path.join(this.root, 'lake')}/`,
  }, path.join(this.root, 'writer.lock'));
  #ledger = new Map<string, LedgerEntry>();

  constructor() {
    mkdirSync(this.files);
  }

  /** Copies corpus files (relative to it) under `under` in the source's folder. */
  add(files: readonly string[], under: string): void {
    for (const file of files) cpSync(path.join(CORPUS, file), path.join(this.files, under, file));
  }

  async sync(): Promise<SyncOutcome & { perFile: Record<string, number> }> {
    return this.#writer.write(async (write) => {
      const outcome = await syncFileSource(write, {
        source: 'corpus', directory: this.files, pattern: '**/*', fullRefresh: false, lookbackDays: undefined,
        dataRoots: new DataRoots([this.root], 'the test folder'), spreadsheetSeconds: 120,
      }, this.#ledger, new Date(), AbortSignal.timeout(TIMEOUT_MS));
      this.#ledger = new Map(outcome.ledger.map((entry) => [entry.path, entry]));
      return { ...outcome, perFile: await this.#rowsPerFile(write.connection) };
    }, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  }

  /** Files the ledger holds as unreadable, relative to the source's folder. */
  unreadable(): string[] {
    return [...this.#ledger.values()].filter((entry) => entry.error !== null).map((entry) => path.relative(this.files, entry.path)).sort();
  }

  async #rowsPerFile(connection: DuckDBConnection): Promise<Record<string, number>> {
    const result = await connection.runAndReadAll('SELECT _quarry_file AS file, count(*)::BIGINT AS n FROM raw_corpus.corpus GROUP BY 1');
    return Object.fromEntries(result.getRowObjects().map((row) => [path.relative(this.files, String(row.file)), Number(row.n)]));
  }

  close(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

describe.each(suites)('the files of %s, loaded by the file loader', (suite) => {
  const files = filesOf(suite);

  it('each hold exactly the rows DuckDB reads from the file alone in an empty table; the others are listed unreadable', async () => {
    const lake = new LoaderLake();
    try {
      lake.add(files, '');
      const outcome = await lake.sync();
      expect(outcome.filesFailed).toBe(unreadable(files).length);
      expect(outcome.perFile).toEqual(withRows(files, ''));
      expect(lake.unreadable()).toEqual(unreadable(files));
    } finally {
      lake.close();
    }
  }, TIMEOUT_MS);

  it('keep those rows beside other files, and delete + sync gives back the table as it was', async () => {
    const lake = new LoaderLake();
    try {
      lake.add(BASE_FILES, 'base');
      const base = await lake.sync();
      expect(base.perFile).toEqual(withRows(BASE_FILES, 'base'));

      lake.add(files, 'added');
      const added = await lake.sync();
      expect(added.filesFailed).toBe(unreadable(files).length);
      expect(added.perFile).toEqual({ ...base.perFile, ...withRows(files, 'added') });
      expect(lake.unreadable()).toEqual(unreadable(files).map((file) => path.join('added', file)));

      rmSync(path.join(lake.files, 'added'), { recursive: true });
      const removed = await lake.sync();
      expect(removed.rows).toBe(base.rows);
      expect(removed.perFile).toEqual(base.perFile);
    } finally {
      lake.close();
    }
  }, TIMEOUT_MS);
});

describe('real-world files synced through the API', () => {
  const files = END_TO_END_SUITES.flatMap(filesOf);
  let quarry: TestQuarry;

  beforeAll(async () => {
    quarry = await startQuarry({
      sourcesYaml: ['sources:', '  - name: corpus', '    type: local_files', '    local_files:', '      directory: data/corpus', '      file_pattern: "**/*"', ''].join('\n'),
    });
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('load into the source\'s raw table with DuckDB\'s row counts, and the API lists the unreadable ones', async () => {
    const folder = path.join(quarry.dir, 'data', 'corpus');
    for (const file of files) cpSync(path.join(CORPUS, file), path.join(folder, file));
    const end = await syncAndWait(quarry, 'corpus');
    expect(end.type).toBe('sync_completed');
    expect(await filesFailedOfLastSync(quarry, 'corpus')).toBe(unreadable(files).length);

    const rows = await quarry.query('SELECT _quarry_file AS file, count(*)::BIGINT AS n FROM raw_corpus.corpus GROUP BY 1');
    expect(Object.fromEntries(rows.map((row) => [path.relative(folder, String(row.file)), Number(row.n)]))).toEqual(withRows(files, ''));
    const listing = await quarry.request('GET', '/api/sources/corpus/csv-files', { as: 'viewer' });
    const listedUnreadable = (listing.json.files as { path: string; status: string }[])
      .filter((file) => file.status === 'unreadable').map((file) => path.relative(folder, file.path)).sort();
    expect(listedUnreadable).toEqual(unreadable(files));
  }, TIMEOUT_MS);
});
