import { existsSync } from 'node:fs';
import { JsonDuckDBValueConverter, type DuckDBResult, type Json } from '@duckdb/node-api';
import type { ProjectPaths } from '../config/index.ts';
import { describeError, firstLineOf, InvalidRequestError, QuarryError } from '../errors.ts';
import { assertReadsOnly, QueryNotAllowedError } from './reader-sql.ts';
import { DEFAULT_READER_LIMITS, openSandboxedReader, type SandboxedReader } from './sandboxed-reader.ts';

/** The query ran past `limits.query_seconds` and was interrupted. */
export class QueryTimeoutError extends InvalidRequestError {
  override readonly code = 'query_timeout';
}

/** DuckDB refused or failed the query; the message is DuckDB's. */
export class QueryFailedError extends InvalidRequestError {
  override readonly code = 'query_failed';
}

export interface ReadQueryLimits {
  /** At most this many rows are read; one more tells that the result was cut. */
  readonly maxRows: number;
  readonly timeoutMs: number;
  /** DuckDB's notation, '1GB'; the reader's default when absent. */
  readonly memoryLimit?: string | undefined;
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
}

export interface QueryAnswer {
  readonly columns: readonly QueryColumn[];
  readonly rows: Json[][];
  readonly truncated: boolean;
  readonly elapsedMs: number;
}

/**
 * Runs one read-only query, checked by assertReadsOnly, on a sandboxed reader of the current warehouse
 * (never the writer), interrupted at the time limit; `work` reads the result while the reader is open.
 */
export async function withReadQuery<T>(paths: ProjectPaths, sql: string, limits: ReadQueryLimits, work: (result: ReadQueryResult) => Promise<T>): Promise<T> {
  const reader = await openCurrentWarehouse(paths, limits);
  let timedOut = false;
  const interrupt = (): void => { reader.connection.interrupt(); };
  const timer = setTimeout(() => {
    timedOut = true;
    interrupt();
  }, limits.timeoutMs);
  limits.signal?.addEventListener('abort', interrupt);
  try {
    const result = await (async () => {
      await assertReadsOnly(reader.connection, sql);
      return reader.connection.stream(sql);
    })().catch((error: unknown) => { throw queryError(error, timedOut, limits); });
    return await work(readInBatches(result, limits.maxRows, () => timedOut, limits));
  } finally {
    clearTimeout(timer);
    limits.signal?.removeEventListener('abort', interrupt);
    reader.close();
  }
}

/** Runs one read-only query and collects its rows (up to the cap). */
export async function runReadQuery(paths: ProjectPaths, sql: string, limits: ReadQueryLimits): Promise<QueryAnswer> {
  const started = performance.now();
  return withReadQuery(paths, sql, limits, async (result) => {
    const rows: Json[][] = [];
    for await (const batch of result.batches()) rows.push(...batch);
    return { columns: result.columns, rows, truncated: result.truncated(), elapsedMs: Math.round(performance.now() - started) };
  });
}

// The one place that knows which files are the current warehouse: the lake changes this function only.
function openCurrentWarehouse(paths: ProjectPaths, limits: ReadQueryLimits): Promise<SandboxedReader> {
  if (!existsSync(paths.servingFile)) throw new QueryFailedError('Nothing has been loaded into the warehouse yet: sync a source first');
  return openSandboxedReader(paths.servingFile, { ...DEFAULT_READER_LIMITS, ...(limits.memoryLimit === undefined ? {} : { memoryLimit: limits.memoryLimit }) });
}

function readInBatches(result: DuckDBResult, maxRows: number, timedOut: () => boolean, limits: ReadQueryLimits): ReadQueryResult {
  const columns = result.columnNames().map((name, index) => ({ name, type: result.columnType(index).toString() }));
  let cut = false;
  return {
    columns,
    truncated: () => cut,
    async *batches() {
      let read = 0;
      for (;;) {
        const chunk = await result.fetchChunk().catch((error: unknown) => { throw queryError(error, timedOut(), limits); });
        if (chunk === null || chunk.rowCount === 0) return;
        const rows = chunk.convertRows<Json>(JsonDuckDBValueConverter);
        if (read + rows.length > maxRows) {
          cut = true;
          yield rows.slice(0, maxRows - read);
          return;
        }
        read += rows.length;
        yield rows;
      }
    },
  };
}

function queryError(error: unknown, timedOut: boolean, limits: ReadQueryLimits): Error {
  if (error instanceof QuarryError) return error;
  // DuckDB's own sandbox refused it (IMPORT reads its files while being parsed).
  if (describeError(error).includes('Permission Error')) return new QueryNotAllowedError(`Not allowed here: ${firstLineOf(error)}`);
  if (timedOut) return new QueryTimeoutError(`The query ran longer than ${String(limits.timeoutMs / 1000)} seconds and was stopped`);
  if (limits.signal?.aborted === true) return new QueryFailedError('The query was cancelled');
  return new QueryFailedError(firstLineOf(error));
}
