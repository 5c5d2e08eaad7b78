import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import type { RecordSink, StagedFile, TableSpec, TableWriter } from './connector.ts';
import { SyncFailedError } from './sync-failed-error.ts';

export interface StagedTable {
  readonly spec: TableSpec;
  readonly files: readonly StagedFile[];
  readonly records: number;
}

/** Lines are handed to the file in pieces of about this many characters: a page of a few records is no write of its own. */
const WRITE_BATCH_CHARS = 1024 * 1024;

/**
 * A table's lines go to a new file after about this many characters. The load reads all of a table's files as one
 * (one type inference over every record), but DuckDB infers types one file per thread, so a 40 MB extraction's
 * inference pass takes 125-165 ms in ten files against 230-300 ms in one.
 */
const PART_CHARS = 4 * 1024 * 1024;

class JsonLinesWriter implements TableWriter {
  readonly files: StagedFile[] = [];
  records = 0;
  #stream: WriteStream | undefined;
  /** Characters handed to the current file so far. */
  #written = 0;
  /** Lines not yet handed to the stream. */
  #pending = '';
  /** A write that failed (a full disk): kept, since the stream reports it after the write call returned. */
  #failure: Error | undefined;
  readonly #filePrefix: string;

  /** Writes `<filePrefix>-0.jsonl`, `<filePrefix>-1.jsonl`, ... */
  constructor(filePrefix: string) {
    this.#filePrefix = filePrefix;
  }

  async write(records: readonly Record<string, unknown>[]): Promise<void> {
    if (records.length === 0) return;
    this.#throwIfFailed();
    if (this.#stream !== undefined && this.#written >= PART_CHARS) await this.#endPart(this.#stream);
    this.#stream ??= this.#startPart();
    this.records += records.length;
    // Appended one by one: V8 builds the text as a rope, far cheaper than an array of lines joined.
    for (const record of records) this.#pending += `${JSON.stringify(record)}\n`;
    if (this.#pending.length >= WRITE_BATCH_CHARS) await this.#flush(this.#stream);
  }

  #startPart(): WriteStream {
    const file = `${this.#filePrefix}-${String(this.files.length)}.jsonl`;
    const stream = createWriteStream(file, { flags: 'wx' });
    stream.on('error', (error) => { this.#failure ??= error; });
    this.files.push({ path: file, format: 'jsonl' });
    this.#written = 0;
    return stream;
  }

  async #endPart(stream: WriteStream): Promise<void> {
    this.#stream = undefined;
    try {
      await this.#flush(stream);
    } finally {
      stream.end();
      await finished(stream).catch(() => undefined);
    }
    this.#throwIfFailed();
  }

  async #flush(stream: WriteStream): Promise<void> {
    const text = this.#pending;
    this.#pending = '';
    this.#written += text.length;
    if (text !== '' && !stream.write(text)) await drainedOrClosed(stream);
    this.#throwIfFailed();
  }

  addFile(file: StagedFile): void {
    this.files.push(file);
  }

  async close(): Promise<void> {
    const stream = this.#stream;
    if (stream !== undefined && !stream.writableFinished && !stream.destroyed) await this.#endPart(stream);
    this.#throwIfFailed();
  }

  #throwIfFailed(): void {
    if (this.#failure !== undefined) throw new SyncFailedError(`Could not stage the extracted records: ${this.#failure.message}`);
  }
}

/**
 * Waits for the stream to take more or to close. The losing wait is removed, so a long extraction does
 * not pile up listeners; a failure while waiting is kept by the stream's error handler and reported after.
 */
async function drainedOrClosed(stream: WriteStream): Promise<void> {
  const abort = new AbortController();
  const waits = ['drain', 'close'].map((event) => once(stream, event, { signal: abort.signal }).catch(() => undefined));
  await Promise.race(waits);
  abort.abort();
}

/**
 * A job's scratch folder: records extracted from a source are written to JSON-lines files per table
 * here, then loaded into the warehouse in one transaction. Removed once the job ends, whatever happened.
 */
export class StagingArea implements RecordSink {
  readonly directory: string;
  readonly #writers = new Map<string, { spec: TableSpec; writer: JsonLinesWriter }>();

  private constructor(directory: string) {
    this.directory = directory;
  }

  static async create(runDir: string, jobId: number): Promise<StagingArea> {
    const directory = path.join(runDir, 'staging', `job-${String(jobId)}`);
    await rm(directory, { recursive: true, force: true });
    await mkdir(directory, { recursive: true });
    return new StagingArea(directory);
  }

  table(spec: TableSpec): TableWriter {
    const existing = this.#writers.get(spec.name);
    if (existing !== undefined) return existing.writer;
    // Numbered, not named: a table name from a vendor or a database is not a safe file name.
    const writer = new JsonLinesWriter(path.join(this.directory, `table-${String(this.#writers.size)}`));
    this.#writers.set(spec.name, { spec, writer });
    return writer;
  }

  /** Flushes every file and returns what was staged, table by table. */
  async finish(): Promise<StagedTable[]> {
    await Promise.all([...this.#writers.values()].map(({ writer }) => writer.close()));
    return [...this.#writers.values()].map(({ spec, writer }) => ({ spec, files: writer.files, records: writer.records }));
  }

  async remove(): Promise<void> {
    await Promise.all([...this.#writers.values()].map(({ writer }) => writer.close().catch(() => undefined)));
    await rm(this.directory, { recursive: true, force: true });
  }
}
