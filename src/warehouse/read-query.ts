import type { DuckDBConnection, DuckDBDataChunk, DuckDBResult, Json } from '@duckdb/node-api';
import { describeError, firstLineOf, InvalidRequestError, QuarryError } from '../errors.ts';
import { assertReadsOnly, QueryNotAllowedError } from './reader-sql.ts';
import { inCatalogTurn, openCatalogInTurn } from './catalog-opening.ts';
import { catalogMissing, type LakeLocation } from './lake-location.ts';
import { jsonCharactersOf, toJson } from './result-json.ts';
import { ReaderPool, type LendOptions, type ReaderPoolOptions } from './reader-pool.ts';
import { DEFAULT_READER_LIMITS } from './sandboxed-reader.ts';

/** The query ran past `limits.query_seconds` and was interrupted. */
export class QueryTimeoutError extends InvalidRequestError {
  override readonly code = 'query_timeout';
}

/** DuckDB refused or failed the query; the message is DuckDB's. */
export class QueryFailedError extends InvalidRequestError {
  override readonly code = 'query_failed';
}

/** An answer's first row alone is larger than the answer may be; the result's columns are known. */
export class AnswerTooLargeError extends QueryFailedError {
  readonly columns: readonly QueryColumn[];

  constructor(message: string, columns: readonly QueryColumn[]) {
    super(message);
    this.columns = columns;
  }
}

export interface ReadQueryLimits {
  /** At most this many rows are read; one more tells that the result was cut. */
  readonly maxRows: number;
  /**
   * At most this many characters of the rows as JSON are read (about their bytes); one more row tells that the
   * result was cut. Unbounded when absent: a stream hands its rows on as it reads them.
   */
  readonly maxCharacters?: number | undefined;
  readonly timeoutMs: number;
  /** Interrupts the query early (the client went away). */
  readonly signal?: AbortSignal | undefined;
}

export interface QueryColumn {
  readonly name: string;
  /** DuckDB's type name: INTEGER, VARCHAR, DECIMAL(18,3)… */
  readonly type: string;
}

/** A running query's result, read in batches while the reader is open. */
export interface ReadQueryResult {
  readonly columns: readonly QueryColumn[];
  /** Rows in DuckDB's batches, as JSON values (big integers, decimals and times as strings), up to the row cap. */
  batches(): AsyncGenerator<Json[][]>;
  /** Whether rows past the cap were left unread; known once batches() has ended. */
  truncated(): boolean;
  /**
   * Aborted once the query's time is up. The reader stays lent until the borrower returns, so a borrower that
   * waits on anything besides batches() (a client reading a download) must stop waiting then.
   */
  readonly timeUp: AbortSignal;
}

export interface QueryAnswer {
  readonly columns: readonly QueryColumn[];
  readonly rows: Json[][];
  readonly truncated: boolean;
  readonly elapsedMs: number;
}

/**
 * A collected answer holds at most this much, in characters of its rows' JSON: a browser's table or a terminal
 * has no use for more, and the service holds each answer whole while it sends it.
 */
const ANSWER_CHARACTERS = 32 * 1024 * 1024;

/**
 * No row is larger, in characters of its JSON, even in a download: a download holds a batch or two whole while the
 * client reads the one before.
 */
const ROW_CHARACTERS = 64 * 1024 * 1024;

/**
 * A streamed result hands its rows on in batches of about this many characters, so a result of long values
 * (DuckDB's chunks hold 2,048 rows) is never converted whole while the client reads the rows before.
 */
const BATCH_CHARACTERS = 1024 * 1024;

/** How many queries run at once; more wait for a reader. Each has one thread; all share one memory limit. */
const CONCURRENT_QUERIES = 4;

/**
 * How long a reader keeps its snapshot for the next queries, at most and when idle: a page's or a dashboard's
 * queries come together, and a second bounds how late a commit past Quarry's writers is seen.
 */
const SNAPSHOT_KEPT_MS = 1000;

/**
 * The one way to run SQL on the warehouse for reading: each query is checked by assertReadsOnly, then runs on a
 * sandboxed read-only connection of the current snapshot (never the writer), interrupted at its time limit.
 */
export class WarehouseReaders implements QueryStreams {
  /** The lake they read. */
  readonly lake: LakeLocation;
  readonly #pool: ReaderPool;

  /** `options` change the defaults: CONCURRENT_QUERIES readers, each keeping its snapshot SNAPSHOT_KEPT_MS. */
  constructor(lake: LakeLocation, options: Partial<Pick<ReaderPoolOptions, 'size' | 'snapshotKeptMs'>> = {}) {
    this.lake = lake;
    this.#pool = new ReaderPool(this.lake, {
      size: options.size ?? CONCURRENT_QUERIES, limits: DEFAULT_READER_LIMITS, snapshotKeptMs: options.snapshotKeptMs ?? SNAPSHOT_KEPT_MS,
    });
  }

  /**
   * Lends a reader to Quarry's own SQL (the catalog's listing, snapshots, health; never a user's, which
   * withQuery checks) inside one read transaction, so every statement of `work` reads the snapshot that was the
   * latest when its first began. DuckDB's failures become QueryFailedError.
   */
  async withReader<T>(work: (connection: DuckDBConnection) => Promise<T>, options: LendOptions = {}): Promise<T> {
    if (catalogMissing(this.lake)) throw new QueryFailedError('Nothing has been loaded into the warehouse yet: sync a source first');
    const lent = this.#pool.lend(async (connection) => {
      await openCatalogInTurn(connection);
      return work(connection);
    }, options);
    return lent.catch((error: unknown) => { throw error instanceof QuarryError ? error : new QueryFailedError(firstLineOf(error)); });
  }

  /** Runs the query; `work` reads the result while the reader is lent. */
  async withQuery<T>(sql: string, limits: ReadQueryLimits, work: (result: ReadQueryResult) => Promise<T>): Promise<T> {
    if (catalogMissing(this.lake)) throw new QueryFailedError('Nothing has been loaded into the warehouse yet: sync a source first');
    return this.#pool.lend(async (connection) => {
      // Cancelled while it waited for a reader: the interrupt below would come too late to be heard.
      if (limits.signal?.aborted === true) throw new QueryFailedError('The query was cancelled');
      const timeUp = new AbortController();
      const interrupt = (): void => { connection.interrupt(); };
      const timer = setTimeout(() => {
        timeUp.abort();
        interrupt();
      }, limits.timeoutMs);
      limits.signal?.addEventListener('abort', interrupt);
      try {
        const result = await (async () => {
          await assertReadsOnly(connection, sql);
          // One statement (the check refuses more), so it is prepared directly, without extracting statements first.
          const prepared = await inCatalogTurn(() => connection.prepare(sql));
          try {
            return await prepared.stream();
          } finally {
            prepared.destroySync();
          }
        })().catch((error: unknown) => { throw queryError(error, timeUp.signal.aborted, limits); });
        return await work(readInBatches(result, timeUp.signal, limits));
      } finally {
        clearTimeout(timer);
        limits.signal?.removeEventListener('abort', interrupt);
      }
    });
  }

  /** Runs the query and collects its rows, up to the row cap and the characters cap (ANSWER_CHARACTERS unless lower). */
  run(sql: string, limits: ReadQueryLimits): Promise<QueryAnswer> {
    return collectAnswer(this, sql, limits);
  }

  /** Closes every reader once its query ends. */
  close(): void {
    this.#pool.close();
  }
}

/** What runs a query and lets a borrower read its result: the readers here, or the query process. */
export interface QueryStreams {
  withQuery<T>(sql: string, limits: ReadQueryLimits, work: (result: ReadQueryResult) => Promise<T>): Promise<T>;
}

/** Runs the query through `streams` and collects its rows, up to the row cap and the characters cap (ANSWER_CHARACTERS unless lower). */
export async function collectAnswer(streams: QueryStreams, sql: string, limits: ReadQueryLimits): Promise<QueryAnswer> {
  const started = performance.now();
  const maxCharacters = Math.min(limits.maxCharacters ?? ANSWER_CHARACTERS, ANSWER_CHARACTERS);
  return streams.withQuery(sql, { ...limits, maxCharacters }, async (result) => {
    const rows: Json[][] = [];
    for await (const batch of result.batches()) rows.push(...batch);
    return { columns: result.columns, rows, truncated: result.truncated(), elapsedMs: Math.round(performance.now() - started) };
  });
}

function readInBatches(result: DuckDBResult, timeUp: AbortSignal, limits: ReadQueryLimits): ReadQueryResult {
  const columns = columnsOf(result);
  const { maxRows, maxCharacters = Number.POSITIVE_INFINITY } = limits;
  let cut = false;
  return {
    columns,
    timeUp,
    truncated: () => cut,
    async *batches() {
      let read = 0;
      let characters = 0;
      for (;;) {
        const chunk = await result.fetchChunk().catch((error: unknown) => { throw queryError(error, timeUp.aborted, limits); });
        if (chunk === null || chunk.rowCount === 0) return;
        let batch: Json[][] = [];
        let batchCharacters = 0;
        for (let index = 0; index < chunk.rowCount; index++) {
          if (read === maxRows) {
            cut = true;
            break;
          }
          const row = convertRow(chunk, index);
          const size = jsonCharactersOf(row);
          if (size > ROW_CHARACTERS) {
            throw new QueryFailedError(`A row of the result is ${megabytes(size)} as JSON, more than the ${megabytes(ROW_CHARACTERS)} a row may be: select fewer or shorter values`);
          }
          if (characters + size > maxCharacters) {
            if (read === 0) {
              throw new AnswerTooLargeError(`The result's first row is ${megabytes(size)} as JSON, more than the ${megabytes(maxCharacters)} one answer holds: select fewer or shorter values, or download the result as CSV`, columns);
            }
            cut = true;
            break;
          }
          batch.push(row);
          read += 1;
          characters += size;
          batchCharacters += size;
          if (batchCharacters >= BATCH_CHARACTERS) {
            yield batch;
            batch = [];
            batchCharacters = 0;
          }
        }
        if (batch.length > 0) yield batch;
        if (cut) return;
      }
    },
  };
}

function columnsOf(result: DuckDBResult): QueryColumn[] {
  try {
    return result.columnNames().map((name, index) => ({ name, type: result.columnType(index).toString() }));
  } catch (error) {
    // A type node-api does not know (the TYPE that get_type() returns).
    throw new QueryFailedError(`A column of the result cannot be read: ${firstLineOf(error)}`);
  }
}

function convertRow(chunk: DuckDBDataChunk, index: number): Json[] {
  try {
    return chunk.convertRowValues(index, toJson);
  } catch (error) {
    // A value longer than a JavaScript string may be (512 MB), or of a type with no JSON form.
    throw new QueryFailedError(`A value of the result cannot be read: ${firstLineOf(error)}`);
  }
}

function megabytes(characters: number): string {
  return `${String(Math.ceil(characters / (1024 * 1024)))} MB`;
}

/** The error of a query stopped at its time limit. */
export function queryTimedOut(timeoutMs: number): QueryTimeoutError {
  return new QueryTimeoutError(`The query ran longer than ${String(timeoutMs / 1000)} seconds and was stopped`);
}

function queryError(error: unknown, timedOut: boolean, limits: ReadQueryLimits): Error {
  if (error instanceof QuarryError) return error;
  // DuckDB's own sandbox refused it (IMPORT reads its files while being parsed).
  if (describeError(error).includes('Permission Error')) return new QueryNotAllowedError(`Not allowed here: ${firstLineOf(error)}`);
  if (timedOut) return queryTimedOut(limits.timeoutMs);
  if (limits.signal?.aborted === true) return new QueryFailedError('The query was cancelled');
  return new QueryFailedError(firstLineOf(error));
}
