import { access } from 'node:fs/promises';
import { describeError } from '../errors.ts';
import type { DataRoots } from '../config/index.ts';
import type { LedgerEntry } from '../store/index.ts';
import { quoteIdentifier, quoteLiteral, setJobThreads, type DuckDBConnection, type LakeWrite } from '../warehouse/index.ts';
import { applySchemaChanges, describeChange, describeColumns, planSchema, type Respelling } from './evolve-schema.ts';
import { configuredKey, isWarehouseFailure, readerSql, UnreadableFileError, type Column, type FileReading } from './file-reading.ts';
import { readFilesAlone, SMALL_FILE_BYTES } from './read-files-alone.ts';
import { hashFile, listSourceFiles, type SourceFileListing, type SourceFile } from './list-source-files.ts';
import { listObjects } from './list-objects.ts';
import type { ObjectStore } from './object-store.ts';
import { convertSpreadsheets, type SpreadsheetStandIns } from './xlsx-stand-ins.ts';
import { SyncFailedError } from './sync-failed-error.ts';
import type { CsvReadOptions } from './type-definition/index.ts';

export const FILE_COLUMN = '_quarry_file';
export const LOADED_AT_COLUMN = '_quarry_loaded_at';

export interface FileSourceSpec {
  readonly source: string;
  /** The folder, or for objects the prefix's URL. */
  readonly directory: string;
  /** The bucket the files are objects in, granted to the connection `write` holds; none for a local folder. */
  readonly objects?: ObjectStore | undefined;
  readonly pattern: string;
  readonly fullRefresh: boolean;
  readonly lookbackDays: number | undefined;
  /** `read_csv` options the source fixes for every CSV file; the rest is detected per file. */
  readonly csv?: CsvReadOptions | undefined;
  /** The only folders it may read: a file leading elsewhere through a symlink is skipped. */
  readonly dataRoots: DataRoots;
  /** How long reading one spreadsheet may take before it is set aside. */
  readonly spreadsheetSeconds: number;
}

export interface SyncOutcome {
  readonly rows: number;
  readonly tables: { schema: string; name: string; rowCount: number }[];
  readonly ledger: LedgerEntry[];
  readonly messages: { level: 'INFO' | 'WARNING'; message: string }[];
  /** Files on disk that DuckDB cannot read, skipped by this sync (their reasons are in `messages`). */
  readonly filesFailed: number;
}

/** A source's raw-layer schema, as `tables[].schema` reports it. */
export function rawSchemaOf(source: string): string {
  return `raw_${source}`;
}


/** Files loaded together by one INSERT that failed: which of them failed is found by loading them one by one. */
class BatchLoadError extends Error {}

/** A file that could be read alone but not loaded: the transaction is retried without it. */
class FileLoadError extends Error {
  readonly failure: UnreadableFileError;
  constructor(failure: UnreadableFileError) {
    super(failure.message);
    this.failure = failure;
  }
}

/**
 * Loads a file source into one raw table in a single transaction: every new or changed file is read with the
 * dialect DuckDB detects for it alone, rows of changed and deleted files are removed, a full refresh rebuilds.
 * A file DuckDB cannot read is skipped and reported, and keeps the rows of its last read (until a full refresh);
 * on any other failure nothing changes.
 */
export async function syncFileSource(
  write: LakeWrite, spec: FileSourceSpec, ledger: ReadonlyMap<string, LedgerEntry>, now: Date, signal: AbortSignal,
): Promise<SyncOutcome> {
  const { connection } = write;
  const { files, outsideDataRoots } = spec.objects === undefined
    ? await listFolder(spec)
    : { files: await listObjects(spec.objects, spec.pattern, signal), outsideDataRoots: [] };
  const schemaName = rawSchemaOf(spec.source);
  const table = `${quoteIdentifier(schemaName)}.${quoteIdentifier(spec.source)}`;
  const messages: SyncOutcome['messages'] = outsideDataRoots.map((file) => ({
    level: 'WARNING', message: `Skipped ${file}: it leads outside the data roots (${spec.dataRoots.named}) through a symlink`,
  }));
  const loadedAt = now.toISOString().replace('T', ' ').replace('Z', '');
  const configured = configuredKey(spec.csv);

  const existingRows = await countRows(connection, schemaName, spec.source);
  if (files.length === 0 && existingRows > 0 && !spec.fullRefresh) {
    throw new SyncFailedError(
      `No files match ${spec.pattern} in ${spec.directory}; refusing to replace ${String(existingRows)} loaded rows with nothing. `
      + 'Run a full refresh to empty the table on purpose.',
    );
  }

  const lookbackStart = spec.lookbackDays === undefined ? Number.POSITIVE_INFINITY : now.getTime() - spec.lookbackDays * 86_400_000;
  const toLoad: SourceFile[] = [];
  // A file loaded now has its hash recorded after the commit (LedgerHasher); one known to the ledger keeps its own.
  const hashOf = new Map<string, string>();
  for (const file of files) {
    const known = ledger.get(file.path);
    // An object's ETag stands for its hash: another upload changes it, even within the second its time is kept to.
    const tag = file.etag === undefined ? undefined : `etag:${file.etag}`;
    if (tag !== undefined) hashOf.set(file.path, tag);
    const withinLookback = file.mtimeMs >= lookbackStart;
    const sameOptions = known?.reading == null || file.format !== 'csv' || parseReading(known.reading)?.configured === configured;
    if (spec.fullRefresh || existingRows === 0 || known === undefined || withinLookback || !sameOptions) {
      toLoad.push(file);
      continue;
    }
    if (tag !== undefined) {
      if (known.size !== file.size || known.sha256 !== tag) toLoad.push(file);
      continue;
    }
    if (known.size === file.size && known.mtimeMs === file.mtimeMs) {
      hashOf.set(file.path, known.sha256);
      continue;
    }
    // Its time or size changed: the content decides, and a hash not yet recorded ('') never matches.
    const sha256 = await hashFile(file.path);
    hashOf.set(file.path, sha256);
    if (sha256 !== known.sha256) toLoad.push(file);
  }

  // Spreadsheets are read in processes of their own into Parquet stand-ins, which everything below reads instead.
  const standIns = await convertSpreadsheets(toLoad, { deadlineSeconds: spec.spreadsheetSeconds, objects: spec.objects, signal });
  try {
    return await loadFiles(write, { spec, files, toLoad, ledger, hashOf, existingRows, messages, table, schemaName, loadedAt, configured, standIns }, now, signal);
  } finally {
    await standIns.close();
  }
}

/** What syncFileSource has decided before the files are read: which to load, and what it knows of the rest. */
interface LoadPlan {
  readonly spec: FileSourceSpec;
  readonly files: readonly SourceFile[];
  readonly toLoad: readonly SourceFile[];
  readonly ledger: ReadonlyMap<string, LedgerEntry>;
  readonly hashOf: Map<string, string>;
  readonly existingRows: number;
  readonly messages: SyncOutcome['messages'];
  readonly table: string;
  readonly schemaName: string;
  readonly loadedAt: string;
  readonly configured: string;
  readonly standIns: SpreadsheetStandIns;
}

async function loadFiles(write: LakeWrite, plan: LoadPlan, now: Date, signal: AbortSignal): Promise<SyncOutcome> {
  const { connection } = write;
  const { spec, files, ledger, hashOf, messages, table, schemaName, loadedAt, configured, standIns } = plan;
  const toLoad = plan.toLoad.map((file) => {
    const content = standIns.paths.get(file.path);
    return content === undefined ? file : { ...file, content };
  });
  // Each file is read alone before the transaction: one DuckDB cannot read is set aside here, and one that
  // is unchanged keeps the reading the ledger holds, so it is never sniffed again.
  const kept = new Map(toLoad.flatMap((file) => {
    const known = ledger.get(file.path);
    const unchanged = known !== undefined && known.size === file.size && known.mtimeMs === file.mtimeMs && (file.etag === undefined || known.sha256 === hashOf.get(file.path));
    const reading = !spec.fullRefresh && unchanged ? parseReading(known.reading) : undefined;
    return reading !== undefined && (reading.configured === configured || file.format !== 'csv') ? [[file.path, reading] as const] : [];
  }));
  const { readings, counted, failures } = await readFilesAlone(toLoad.filter((file) => !standIns.failures.has(file.path)), spec.csv, kept, false, signal, spec.objects);
  for (const [file, failure] of standIns.failures) failures.set(file, failure);

  // DuckDB's interrupt stops only the statement running at that moment, so each step checks the signal too.
  signal.throwIfAborted();
  const loadable = (): [string, FileReading][] => toLoad.flatMap((file) => {
    const reading = readings.get(file.path);
    return reading === undefined ? [] : [[file.path, reading] as [string, FileReading]];
  });
  const threads = await currentThreads(connection);
  let batched = true;
  const written = await (async () => {
    for (;;) {
      try {
        return await write.transaction(() => writeFiles(connection, {
          spec, table, schemaName, files, toLoad, loadable: loadable(), contentOf: (file) => standIns.paths.get(file) ?? file, small: new Set(toLoad.filter((file) => file.size <= SMALL_FILE_BYTES).map((file) => file.path)), threads, loadedAt, signal, batched,
        }));
      } catch (error) {
        // A batch that fails names no file: the next attempt loads one file per INSERT, which finds it.
        if (!signal.aborted && error instanceof BatchLoadError) {
          batched = false;
          continue;
        }
        if (signal.aborted || !(error instanceof FileLoadError)) throw error;
        failures.set(error.failure.file, error.failure);
        readings.delete(error.failure.file);
        batched = true;
        // A file that fails past what detection sampled is rare, so files are read whole only once one has:
        // then every small file is, so the others that would fail are set aside in one pass, not one retry each.
        // Each retry leaves out at least one more file (an unbatched one after a batch failed), so this ends.
        if (counted.size === 0) {
          const whole = await readFilesAlone(toLoad.filter((file) => readings.has(file.path)), spec.csv, readings, true, signal, spec.objects);
          for (const [file, rows] of whole.counted) counted.set(file, rows);
          for (const [file, failure] of whole.failures) {
            failures.set(file, failure);
            readings.delete(file);
          }
        }
      }
    }
  })();

  for (const change of written.changes) messages.push({ level: 'WARNING', message: `Schema change: ${change}` });
  for (const message of describeRespellings(written.respellings, ledger)) messages.push({ level: 'INFO', message });
  if (written.removed > 0) messages.push({ level: 'INFO', message: `Removed the rows of ${String(written.removed)} deleted file(s)` });

  const rows = await countRows(connection, schemaName, spec.source);
  const recorded = recordFiles(files, {
    ledger, reloaded: new Set(toLoad.map((file) => file.path)), failures, readings, counted, rowsByFile: written.rowsByFile, hashOf, now, fullRefresh: spec.fullRefresh,
  });
  messages.push(...recorded.messages);
  const { filesFailed } = recorded;
  messages.push({ level: 'INFO', message: `Loaded ${String(toLoad.length)} of ${String(files.length)} file(s); ${String(files.length - toLoad.length)} unchanged` });
  if (filesFailed > 0) messages.push({ level: 'WARNING', message: `${String(filesFailed)} file(s) could not be read and were skipped; the other files are loaded` });
  return { rows, tables: [{ schema: schemaName, name: spec.source, rowCount: rows }], ledger: recorded.entries, messages, filesFailed };
}

async function listFolder(spec: FileSourceSpec): Promise<SourceFileListing> {
  try {
    await access(spec.directory);
  } catch {
    throw new SyncFailedError(`The directory ${spec.directory} does not exist or cannot be read`);
  }
  return listSourceFiles(spec.directory, spec.pattern, spec.dataRoots);
}

/**
 * The ledger after a committed sync: loaded files with their rows and reading, unchanged ones as they were,
 * and files DuckDB cannot read with the reason, each of those named in a WARNING again at every sync.
 */
function recordFiles(files: readonly SourceFile[], state: {
  ledger: ReadonlyMap<string, LedgerEntry>; reloaded: ReadonlySet<string>; failures: ReadonlyMap<string, UnreadableFileError>;
  readings: ReadonlyMap<string, FileReading>; counted: ReadonlyMap<string, number>; rowsByFile: ReadonlyMap<string, number>;
  hashOf: ReadonlyMap<string, string>; now: Date; fullRefresh: boolean;
}): { entries: LedgerEntry[]; filesFailed: number; messages: SyncOutcome['messages'] } {
  const messages: SyncOutcome['messages'] = [];
  const skipped = (file: string, reason: string, keptRows: number): void => {
    const kept = keptRows > 0 ? `; the ${String(keptRows)} row(s) of its last read stay loaded` : '';
    messages.push({ level: 'WARNING', message: `Skipped ${file}: DuckDB cannot read it (${reason})${kept}; it is tried again when it changes` });
  };
  const entries = files.map((file): LedgerEntry => {
    const base = { path: file.path, size: file.size, mtimeMs: file.mtimeMs, sha256: state.hashOf.get(file.path) ?? '' };
    const failure = state.failures.get(file.path);
    const known = state.ledger.get(file.path);
    if (failure !== undefined) {
      // A full refresh rebuilt the table from what reads now; otherwise the rows of the file's last read stay.
      const keptRows = state.fullRefresh ? 0 : known?.rows ?? 0;
      skipped(file.path, failure.message, keptRows);
      return { ...base, rows: keptRows, loadedAt: keptRows > 0 && known !== undefined ? known.loadedAt : state.now.toISOString(), reading: null, error: failure.message };
    }
    if (!state.reloaded.has(file.path) && known !== undefined) {
      if (known.error !== null) skipped(file.path, known.error, known.rows);
      return { ...base, rows: known.rows, loadedAt: known.loadedAt, reading: known.reading, error: known.error };
    }
    const reading = state.readings.get(file.path);
    return {
      ...base, rows: state.counted.get(file.path) ?? state.rowsByFile.get(file.path) ?? 0, loadedAt: state.now.toISOString(),
      reading: reading === undefined ? null : JSON.stringify(reading), error: null,
    };
  });
  return { entries, filesFailed: entries.filter((entry) => entry.error !== null).length, messages };
}

interface WriteInput {
  readonly spec: FileSourceSpec;
  readonly table: string;
  readonly schemaName: string;
  readonly files: readonly SourceFile[];
  readonly toLoad: readonly SourceFile[];
  readonly loadable: readonly [string, FileReading][];
  /** Where a file's content is read from: itself, or a spreadsheet's stand-in. */
  readonly contentOf: (file: string) => string;
  /** DuckDB's thread count for the others. */
  readonly threads: number;
  /** Files small enough that DuckDB's threads only cost time. */
  readonly small: ReadonlySet<string>;
  readonly loadedAt: string;
  readonly signal: AbortSignal;
  /** Whether small CSV files read alike are loaded together (see loadBatches). */
  readonly batched: boolean;
}

/**
 * The whole change, inside the caller's transaction. DuckDB refuses to commit a schema change that follows
 * row changes to the same table, so every CREATE and ALTER runs first, then the deletes, then the inserts.
 */
async function writeFiles(connection: DuckDBConnection, input: WriteInput): Promise<{
  changes: string[]; respellings: readonly Respelling[]; removed: number; rowsByFile: Map<string, number>;
}> {
  const { spec, table, schemaName, signal } = input;
  await connection.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schemaName)}`);
  let exists = await hasTable(connection, schemaName, spec.source);
  if (spec.fullRefresh && exists) {
    await connection.run(`DROP TABLE ${table}`);
    exists = false;
  }
  const existing = exists ? await tableColumns(connection, table) : [];
  const inputs = input.loadable.map(([file, reading]) => ({ name: file, columns: reading.columns.filter(([name]) => !isQuarryColumn(name)) }));
  const plan = planSchema(existing.filter(([name]) => !isQuarryColumn(name)), inputs);
  let changes: string[] = [];
  if (exists) {
    await applySchemaChanges(connection, table, plan.changes);
    changes = plan.changes.map(describeChange);
  } else {
    const columns = [...plan.columns, [FILE_COLUMN, 'VARCHAR'], [LOADED_AT_COLUMN, 'TIMESTAMP']] as const;
    await connection.run(`CREATE TABLE ${table} (${columns.map(([name, type]) => `${quoteIdentifier(name)} ${type}`).join(', ')})`);
  }

  let removed = 0;
  if (exists) {
    const onDisk = new Set(input.files.map((file) => file.path));
    // A changed file DuckDB cannot read now (a copy still in progress) keeps the rows of its last read.
    const reloaded = new Set(input.loadable.map(([file]) => file));
    const loaded = await connection.runAndReadAll(`SELECT DISTINCT ${FILE_COLUMN} AS file FROM ${table}`);
    const stale = loaded.getRowObjects().map((row) => String(row.file)).filter((file) => !onDisk.has(file) || reloaded.has(file));
    if (stale.length > 0) await connection.run(`DELETE FROM ${table} WHERE ${FILE_COLUMN} IN (${stale.map(quoteLiteral).join(', ')})`);
    removed = stale.filter((file) => !onDisk.has(file)).length;
  }

  const rowsByFile = new Map<string, number>();
  const stamp = `${quoteLiteral(input.loadedAt)}::TIMESTAMP`;
  const typeOf = new Map(plan.columns.map(([name, type]) => [name.toLowerCase(), [name, type] as const]));
  // By position, cast to the table's type under the table's spelling: a name DuckDB read (a NUL in a JSON key)
  // never has to be written in SQL.
  // A list of files is read in one call that adds each row's file name after the file's own columns.
  const selectOf = (file: string | readonly string[], reading: FileReading): string => {
    const columns = reading.columns.flatMap(([name], index) => {
      const [spelt, type] = typeOf.get(name.toLowerCase()) ?? [name, 'VARCHAR'];
      return isQuarryColumn(name) ? [] : [`CAST(#${String(index + 1)} AS ${type}) AS ${quoteIdentifier(spelt)}`];
    });
    const origin = typeof file === 'string' ? quoteLiteral(file) : `#${String(reading.columns.length + 1)}`;
    const from = typeof file === 'string' ? readerSql(input.contentOf(file), reading) : readerSql(file, { ...reading, options: { ...reading.options, filename: true, hive_partitioning: false } });
    return `SELECT ${[...columns, `${origin} AS ${FILE_COLUMN}`, `${stamp} AS ${LOADED_AT_COLUMN}`].join(', ')} FROM ${from}`;
  };
  // A small file gains nothing from DuckDB's threads, and each thread appends to every column of a wide table.
  const { threads } = input;
  let singleThreaded: boolean | undefined;
  const setThreads = async (one: boolean): Promise<void> => {
    if (one === singleThreaded) return;
    await setJobThreads(connection, one ? 1 : threads);
    singleThreaded = one;
  };
  try {
    for (const batch of loadBatches(input)) {
      signal.throwIfAborted();
      const [file] = batch.files;
      if (batch.files.length > 1) {
        await setThreads(false);
        for (const [loaded, rows] of await insertBatch(connection, table, batch, selectOf, signal)) rowsByFile.set(loaded, rows);
        continue;
      }
      if (file === undefined) continue;
      await setThreads(input.small.has(file));
      try {
        rowsByFile.set(file, (await connection.run(`INSERT INTO ${table} BY NAME ${selectOf(file, batch.reading)}`)).rowsChanged);
      } catch (error) {
        if (signal.aborted || isWarehouseFailure(error)) throw error;
        throw new FileLoadError(new UnreadableFileError(file, error));
      }
    }
  } finally {
    // After a failed INSERT the transaction refuses every statement; the next attempt sets threads again.
    if (singleThreaded === true) await setJobThreads(connection, threads).catch(() => undefined);
  }
  signal.throwIfAborted();
  return { changes, respellings: plan.respellings, removed, rowsByFile };
}

/** How many files one INSERT reads together at most. */
const FILES_PER_BATCH = 500;

interface LoadBatch {
  readonly files: readonly string[];
  readonly reading: FileReading;
}

/**
 * The files in the order they are loaded, small CSV files DuckDB reads alike (the same dialect and columns, as each
 * was detected alone) put together: one INSERT of many files writes one data file instead of one each, which a
 * thousand small files make a lake slow to read and a sync slow to write. A file alone otherwise.
 */
function loadBatches(input: WriteInput): LoadBatch[] {
  const alone: LoadBatch[] = [];
  const alike = new Map<string, { files: string[]; reading: FileReading }>();
  for (const [file, reading] of input.loadable) {
    if (!input.batched || reading.format !== 'csv' || !input.small.has(file) || input.contentOf(file) !== file) {
      alone.push({ files: [file], reading });
      continue;
    }
    const key = JSON.stringify([reading.options, reading.columns]);
    const batch = alike.get(key) ?? { files: [], reading };
    batch.files.push(file);
    alike.set(key, batch);
  }
  const together = [...alike.values()].flatMap(({ files, reading }) => Array.from(
    { length: Math.ceil(files.length / FILES_PER_BATCH) }, (_, index) => ({ files: files.slice(index * FILES_PER_BATCH, (index + 1) * FILES_PER_BATCH), reading }),
  ));
  return [...together, ...alone];
}

/** Loads a batch of files in one INSERT; answers each file's rows. A failure says only that one of them failed. */
async function insertBatch(
  connection: DuckDBConnection, table: string, batch: LoadBatch, selectOf: (files: readonly string[], reading: FileReading) => string, signal: AbortSignal,
): Promise<Map<string, number>> {
  try {
    await connection.run(`INSERT INTO ${table} BY NAME ${selectOf(batch.files, batch.reading)}`);
  } catch (error) {
    if (signal.aborted || isWarehouseFailure(error)) throw error;
    throw new BatchLoadError(describeError(error));
  }
  const counted = await connection.runAndReadAll(`SELECT ${FILE_COLUMN} AS file, count(*)::BIGINT AS n FROM ${table}
    WHERE ${FILE_COLUMN} IN (${batch.files.map(quoteLiteral).join(', ')}) GROUP BY ALL`);
  const rows = new Map(batch.files.map((file) => [file, 0]));
  for (const row of counted.getRowObjects()) rows.set(String(row.file), Number(row.n));
  return rows;
}

function isQuarryColumn(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === FILE_COLUMN || lower === LOADED_AT_COLUMN;
}

/**
 * One line per column spelt otherwise by some files, naming the file whose spelling the table keeps: the input
 * that brought the column, or for a column already in the table the first ledger file read with that spelling.
 */
function describeRespellings(respellings: readonly Respelling[], ledger: ReadonlyMap<string, LedgerEntry>): string[] {
  const groups = new Map<string, Respelling[]>();
  for (const respelling of respellings) {
    const key = `${respelling.spelling}\u0000${respelling.kept}`;
    groups.set(key, [...groups.get(key) ?? [], respelling]);
  }
  const history = [...ledger.values()].sort((a, b) => a.loadedAt.localeCompare(b.loadedAt) || a.path.localeCompare(b.path));
  return [...groups.values()].flatMap((group) => {
    const [first] = group;
    if (first === undefined) return [];
    const keptFrom = first.keptFrom ?? history.find((entry) => parseReading(entry.reading)?.columns.some(([name]) => name === first.kept))?.path;
    const where = keptFrom === undefined ? 'as the table already has it' : `as in ${keptFrom}`;
    const others = group.length > 1 ? ` and ${String(group.length - 1)} other file(s)` : '';
    return [`Column ${first.spelling} of ${first.input}${others} loaded into column ${first.kept}, spelt ${where}`];
  });
}

function parseReading(text: string | null): FileReading | undefined {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as FileReading;
  } catch {
    return undefined;
  }
}

async function tableColumns(connection: DuckDBConnection, table: string): Promise<Column[]> {
  return [...await describeColumns(connection, `SELECT * FROM ${table}`)];
}

async function currentThreads(connection: DuckDBConnection): Promise<number> {
  const result = await connection.runAndReadAll("SELECT current_setting('threads')::INTEGER AS n");
  return Number(result.getRowObjects()[0]?.n ?? 1);
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
