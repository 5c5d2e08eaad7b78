import { access } from 'node:fs/promises';
import type { LedgerEntry } from '../store/index.ts';
import { inTransaction, quoteIdentifier, quoteLiteral, type DuckDBConnection } from '../warehouse/index.ts';
import { describeColumns, evolveTable } from './evolve-schema.ts';
import { FILE_FORMATS, hashFile, listSourceFiles, type FileFormat, type SourceFile } from './list-source-files.ts';
import { SyncFailedError } from './sync-failed-error.ts';
import { describeError } from '../errors.ts';

export const FILE_COLUMN = '_quarry_file';
export const LOADED_AT_COLUMN = '_quarry_loaded_at';

export interface FileSourceSpec {
  readonly source: string;
  readonly directory: string;
  readonly pattern: string;
  readonly fullRefresh: boolean;
  readonly lookbackDays: number | undefined;
}

export interface SyncOutcome {
  readonly rows: number;
  readonly tables: { schema: string; name: string; rowCount: number }[];
  readonly ledger: LedgerEntry[];
  readonly messages: { level: 'INFO' | 'WARNING'; message: string }[];
}

/** A source's raw-layer schema, as `tables[].schema` reports it. */
export function rawSchemaOf(source: string): string {
  return `raw_${source}`;
}

/** How a group of CSV files is read: the dialect sniffed from one, then held to for all (a file that breaks it fails). */
export interface CsvDialect {
  readonly delimiter: string;
  readonly header: boolean;
}

function readerSql(format: FileFormat, files: readonly string[], dialect?: CsvDialect): string {
  const list = `[${files.map(quoteLiteral).join(', ')}]`;
  const options = `union_by_name = true, filename = ${quoteLiteral(FILE_COLUMN)}`;
  switch (format) {
    case 'csv': {
      const fixed = dialect === undefined ? '' : `, delim = ${quoteLiteral(dialect.delimiter)}, header = ${String(dialect.header)}`;
      return `read_csv(${list}, ${options}${fixed})`;
    }
    case 'json': return `read_json_auto(${list}, ${options})`;
    case 'parquet': return `read_parquet(${list}, ${options})`;
  }
}

function selectSql(format: FileFormat, files: readonly string[], loadedAt: string, dialect: CsvDialect | undefined): string {
  return `SELECT *, ${quoteLiteral(loadedAt)}::TIMESTAMP AS ${LOADED_AT_COLUMN} FROM ${readerSql(format, files, dialect)}`;
}

/**
 * The layout every CSV file of the source is held to: that of a file already loaded when there is one,
 * else the most common among the first few new files, so one malformed file cannot set the layout.
 */
async function chooseDialect(connection: DuckDBConnection, group: readonly string[], loaded: readonly string[]): Promise<CsvDialect> {
  const reference = loaded[0];
  if (reference !== undefined) return sniffDialect(connection, reference);
  const candidates: (CsvDialect | undefined)[] = [];
  for (const file of group.slice(0, 3)) candidates.push(await sniffDialect(connection, file).catch(() => undefined));
  const votes = new Map<string, { dialect: CsvDialect; count: number }>();
  for (const dialect of candidates) {
    if (dialect === undefined) continue;
    const key = `${dialect.delimiter}|${String(dialect.header)}`;
    votes.set(key, { dialect, count: (votes.get(key)?.count ?? 0) + 1 });
  }
  const winner = [...votes.values()].sort((a, b) => b.count - a.count)[0];
  return winner?.dialect ?? sniffDialect(connection, group[0] ?? '');
}

async function sniffDialect(connection: DuckDBConnection, file: string): Promise<CsvDialect> {
  try {
    const result = await connection.runAndReadAll(`SELECT Delimiter AS delimiter, HasHeader AS header FROM sniff_csv(${quoteLiteral(file)})`);
    const row = result.getRowObjects()[0];
    return { delimiter: String(row?.delimiter ?? ','), header: row?.header !== false };
  } catch (error) {
    throw new SyncFailedError(`Could not load ${file}: ${briefly(error)}`);
  }
}

/** The first line or two of a DuckDB error, which name the problem (and the line) without a wall of hints. */
function briefly(error: unknown): string {
  const text = describeError(error);
  return text.split('\n').filter((line) => line.trim() !== '').slice(0, 2).join(' ').slice(0, 500);
}

/**
 * Loads a file source into one raw table in a single transaction: new and changed files are (re)loaded,
 * rows of changed and deleted files removed, a full refresh rebuilds. On any failure nothing changes.
 */
export async function syncFileSource(
  connection: DuckDBConnection, spec: FileSourceSpec, ledger: ReadonlyMap<string, LedgerEntry>, now: Date, signal: AbortSignal,
): Promise<SyncOutcome> {
  try {
    await access(spec.directory);
  } catch {
    throw new SyncFailedError(`The directory ${spec.directory} does not exist or cannot be read`);
  }
  const files = await listSourceFiles(spec.directory, spec.pattern);
  const schema = quoteIdentifier(rawSchemaOf(spec.source));
  const table = `${schema}.${quoteIdentifier(spec.source)}`;
  const messages: SyncOutcome['messages'] = [];
  const loadedAt = now.toISOString().replace('T', ' ').replace('Z', '');

  const existingRows = await countRows(connection, rawSchemaOf(spec.source), spec.source);
  if (files.length === 0 && existingRows > 0 && !spec.fullRefresh) {
    throw new SyncFailedError(
      `No files match ${spec.pattern} in ${spec.directory}; refusing to replace ${String(existingRows)} loaded rows with nothing. `
      + 'Run a full refresh to empty the table on purpose.',
    );
  }

  const lookbackStart = spec.lookbackDays === undefined ? Number.POSITIVE_INFINITY : now.getTime() - spec.lookbackDays * 86_400_000;
  const toLoad: SourceFile[] = [];
  const hashes = new Map<string, Promise<string>>();
  // One file at a time, beside DuckDB's load: hashing many files at once only thrashes the disk cache.
  let hashing: Promise<unknown> = Promise.resolve();
  const hashInBackground = (file: string): Promise<string> => {
    const hash = hashing.then(() => hashFile(file));
    hashing = hash.catch(() => undefined);
    return hash;
  };
  for (const file of files) {
    const known = ledger.get(file.path);
    const withinLookback = file.mtimeMs >= lookbackStart;
    if (spec.fullRefresh || existingRows === 0 || known === undefined || withinLookback) {
      // No earlier content to compare with: the hash is only recorded, so it is computed while DuckDB loads.
      hashes.set(file.path, hashInBackground(file.path));
      toLoad.push(file);
      continue;
    }
    if (known.size === file.size && known.mtimeMs === file.mtimeMs) {
      hashes.set(file.path, Promise.resolve(known.sha256));
      continue;
    }
    const sha256 = await hashFile(file.path);
    hashes.set(file.path, Promise.resolve(sha256));
    if (sha256 !== known.sha256) toLoad.push(file);
  }
  // A hash that fails (the file vanished mid-sync) must not become an unhandled rejection before it is awaited.
  for (const hash of hashes.values()) hash.catch(() => undefined);

  // DuckDB's interrupt stops only the statement running at that moment, so each step checks the signal too.
  signal.throwIfAborted();
  await inTransaction(connection, async () => {
    await connection.run(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    let tableExists = await hasTable(connection, rawSchemaOf(spec.source), spec.source);
    if (spec.fullRefresh && tableExists) {
      await connection.run(`DROP TABLE ${table}`);
      tableExists = false;
    }
    if (tableExists) {
      const onDisk = new Set(files.map((file) => file.path));
      const reloaded = new Set(toLoad.map((file) => file.path));
      const loaded = await connection.runAndReadAll(`SELECT DISTINCT ${FILE_COLUMN} AS file FROM ${table}`);
      const stale = loaded.getRowObjects().map((row) => String(row.file)).filter((file) => !onDisk.has(file) || reloaded.has(file));
      if (stale.length > 0) {
        await connection.run(`DELETE FROM ${table} WHERE ${FILE_COLUMN} IN (${stale.map(quoteLiteral).join(', ')})`);
        const removed = stale.filter((file) => !onDisk.has(file));
        if (removed.length > 0) messages.push({ level: 'INFO', message: `Removed the rows of ${String(removed.length)} deleted file(s)` });
      }
    }
    for (const format of FILE_FORMATS) {
      const group = toLoad.filter((file) => file.format === format).map((file) => file.path);
      if (group.length === 0) continue;
      signal.throwIfAborted();
      const dialect = format === 'csv' ? await chooseDialect(connection, group, files.filter((file) => file.format === 'csv' && !toLoad.includes(file)).map((file) => file.path)) : undefined;
      const select = selectSql(format, group, loadedAt, dialect);
      try {
        if (!tableExists) {
          await connection.run(`CREATE TABLE ${table} AS ${select}`);
          tableExists = true;
        } else {
          const changes = await evolveTable(connection, table, await describeColumns(connection, select));
          for (const change of changes) messages.push({ level: 'WARNING', message: `Schema change: ${change}` });
          await connection.run(`INSERT INTO ${table} BY NAME ${select}`);
        }
      } catch (error) {
        if (signal.aborted) throw error;
        throw new SyncFailedError(await explainLoadFailure(connection, format, group, dialect, error));
      }
    }
    if (!tableExists) {
      await connection.run(`CREATE TABLE ${table} (${FILE_COLUMN} VARCHAR, ${LOADED_AT_COLUMN} TIMESTAMP)`);
    }
    signal.throwIfAborted();
  });

  const hashOf = new Map(await Promise.all([...hashes].map(async ([file, hash]) => [file, await hash] as const)));
  const perFile = await connection.runAndReadAll(`SELECT ${FILE_COLUMN} AS file, count(*)::BIGINT AS n FROM ${table} GROUP BY 1`);
  const rowsByFile = new Map(perFile.getRowObjects().map((row) => [String(row.file), Number(row.n)]));
  const rows = [...rowsByFile.values()].reduce((sum, count) => sum + count, 0);
  const loadedPaths = new Set(toLoad.map((file) => file.path));
  const ledgerEntries = files.map((file) => ({
    path: file.path,
    size: file.size,
    mtimeMs: file.mtimeMs,
    sha256: hashOf.get(file.path) ?? '',
    rows: rowsByFile.get(file.path) ?? 0,
    loadedAt: loadedPaths.has(file.path) ? now.toISOString() : ledger.get(file.path)?.loadedAt ?? now.toISOString(),
  }));
  messages.push({ level: 'INFO', message: `Loaded ${String(toLoad.length)} of ${String(files.length)} file(s); ${String(files.length - toLoad.length)} unchanged` });
  return { rows, tables: [{ schema: rawSchemaOf(spec.source), name: spec.source, rowCount: rows }], ledger: ledgerEntries, messages };
}

/** Names the first file of a failed group that fails on its own, with DuckDB's account of where. */
async function explainLoadFailure(
  connection: DuckDBConnection, format: FileFormat, group: readonly string[], dialect: CsvDialect | undefined, error: unknown,
): Promise<string> {
  if (group.length > 1) {
    for (const file of group) {
      try {
        await connection.run(`SELECT count(*) FROM ${readerSql(format, [file], dialect)}`);
      } catch (fileError) {
        return `Could not load ${file}: ${briefly(fileError)}`;
      }
    }
  }
  return `Could not load ${group.join(', ')}: ${briefly(error)}`;
}

async function hasTable(connection: DuckDBConnection, schema: string, name: string): Promise<boolean> {
  const result = await connection.runAndReadAll(
    `SELECT count(*)::INTEGER AS n FROM information_schema.tables WHERE table_schema = ${quoteLiteral(schema)} AND table_name = ${quoteLiteral(name)}`,
  );
  return Number(result.getRowObjects()[0]?.n ?? 0) > 0;
}

async function countRows(connection: DuckDBConnection, schema: string, name: string): Promise<number> {
  if (!await hasTable(connection, schema, name)) return 0;
  const result = await connection.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM ${quoteIdentifier(schema)}.${quoteIdentifier(name)}`);
  return Number(result.getRowObjects()[0]?.n ?? 0);
}
