import { availableParallelism } from 'node:os';
import { DuckDBInstance } from '@duckdb/node-api';
import { detectFileReading, isWarehouseFailure, readerSql, UnreadableFileError, type FileReading } from './file-reading.ts';
import type { SourceFile } from './list-source-files.ts';
import type { ObjectStore } from './object-store.ts';
import { SyncFailedError } from './sync-failed-error.ts';
import type { CsvReadOptions } from './type-definition/index.ts';

/** A file up to this size is read whole when `whole` is asked (so one DuckDB cannot read fails alone), and loaded on one thread. */
export const SMALL_FILE_BYTES = 8 * 1024 * 1024;

export interface FilesAlone {
  readonly readings: Map<string, FileReading>;
  /** Rows of each file read whole here (the small ones). */
  readonly counted: Map<string, number>;
  readonly failures: Map<string, UnreadableFileError>;
}

/**
 * Reads each file as DuckDB reads it alone: detects its dialect (unless `kept` has it) and, when `whole`
 * is asked, reads the small ones whole. This needs no warehouse, so it runs on an in-memory DuckDB, a few
 * files at a time: the sniffer costs more than the read for a small file, and one file uses one core.
 */
export async function readFilesAlone(
  files: readonly SourceFile[], explicit: CsvReadOptions | undefined, kept: ReadonlyMap<string, FileReading>,
  whole: boolean, signal: AbortSignal, objects?: ObjectStore,
): Promise<FilesAlone> {
  const result: FilesAlone = { readings: new Map(), counted: new Map(), failures: new Map() };
  if (files.length === 0) return result;
  // One thread per query: a small file gains nothing from more, and the connections below run side by side.
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  try {
    const workers = Math.max(1, Math.min(availableParallelism(), 4, files.length));
    const connections = await Promise.all(Array.from({ length: workers }, () => instance.connect()));
    const interrupt = (): void => { for (const connection of connections) connection.interrupt(); };
    signal.addEventListener('abort', interrupt, { once: true });
    let next = 0;
    // A secret belongs to the whole instance, so granting the bucket through one connection serves them all.
    const [first] = connections;
    const withObjects = (work: () => Promise<unknown>): Promise<unknown> =>
      objects === undefined || first === undefined ? work() : objects.grant(first, work);
    try {
      await withObjects(() => Promise.all(connections.map(async (connection) => {
        for (let index = next++; index < files.length; index = next++) {
          signal.throwIfAborted();
          const file = files[index];
          if (file === undefined) continue;
          try {
            const content = file.content ?? file.path;
            const reading = kept.get(file.path) ?? await detectFileReading(connection, content, file.format, explicit);
            if (whole && file.size <= SMALL_FILE_BYTES) {
              try {
                result.counted.set(file.path, (await connection.run(`SELECT * FROM ${readerSql(content, reading)}`)).rowCount);
              } catch (error) {
                throw new UnreadableFileError(file.path, error);
              }
            }
            result.readings.set(file.path, reading);
          } catch (error) {
            if (signal.aborted || !(error instanceof UnreadableFileError)) throw error;
            // An object the store would not hand over says nothing of its content: set aside, it would not be read again until it changes.
            if (objects !== undefined && isWarehouseFailure(error)) throw new SyncFailedError(`Cannot read ${file.path}: ${error.message}`, { transient: true });
            result.failures.set(file.path, error);
          }
        }
      })));
    } finally {
      signal.removeEventListener('abort', interrupt);
      for (const connection of connections) connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
  return result;
}
