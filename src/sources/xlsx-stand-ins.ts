import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { nodeChild, signalProcessGroup } from '../child-process/index.ts';
import { BucketError, keyOf } from '../object-storage/index.ts';
import { confined } from '../os/index.ts';
import { extensionFile } from '../warehouse/index.ts';
import { UnreadableFileError } from './file-reading.ts';
import type { SourceFile } from './list-source-files.ts';
import type { ObjectStore } from './object-store.ts';
import { SyncFailedError } from './sync-failed-error.ts';

const CHILD_SCRIPT = path.join(import.meta.dirname, 'xlsx-child.ts');

/** What the converting process may take of the machine's memory: DuckDB's limit in it is half, the rest the extension's own. */
const CHILD_MEMORY_BYTES = 1024 ** 3;

/** How many characters of the child's error are kept: DuckDB's first lines say what is wrong. */
const ERROR_CHARACTERS = 500;

/**
 * Parquet stand-ins of the spreadsheets a sync reads: each `.xlsx` file converted, in a process of its own with a
 * deadline, to a Parquet file DuckDB then reads in its place (an object is downloaded first). A spreadsheet that cannot
 * be read, or takes too long, is a failure of that file alone. `close` removes the stand-ins.
 */
export interface SpreadsheetStandIns {
  /** By the spreadsheet's path (or URL): the Parquet file holding its first sheet's rows. */
  readonly paths: ReadonlyMap<string, string>;
  readonly failures: ReadonlyMap<string, UnreadableFileError>;
  close(): Promise<void>;
}

export async function convertSpreadsheets(
  files: readonly SourceFile[], options: { deadlineSeconds: number; objects?: ObjectStore | undefined; signal: AbortSignal },
): Promise<SpreadsheetStandIns> {
  const paths = new Map<string, string>();
  const failures = new Map<string, UnreadableFileError>();
  const spreadsheets = files.filter((file) => file.format === 'xlsx');
  if (spreadsheets.length === 0) return { paths, failures, close: () => Promise.resolve() };
  const folder = await mkdtemp(path.join(tmpdir(), 'quarry-spreadsheets-'));
  const close = (): Promise<void> => rm(folder, { recursive: true, force: true });
  try {
    for (const [index, file] of spreadsheets.entries()) {
      options.signal.throwIfAborted();
      const standIn = path.join(folder, `${String(index)}.parquet`);
      const local = options.objects === undefined ? file.path : await download(options.objects, file.path, path.join(folder, `${String(index)}.xlsx`), options.signal);
      const failure = await convert(local, standIn, options.deadlineSeconds, options.signal);
      if (failure === undefined) paths.set(file.path, standIn);
      else failures.set(file.path, new UnreadableFileError(file.path, failure));
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { paths, failures, close };
}

/** The object at `url` in a local file: a store that will not hand it over fails the sync, as it says nothing of the file. */
async function download(store: ObjectStore, url: string, file: string, signal: AbortSignal): Promise<string> {
  const client = store.client(signal);
  try {
    await client.download(keyOf(url), file);
    return file;
  } catch (error) {
    if (!(error instanceof BucketError) || signal.aborted) throw error;
    throw new SyncFailedError(`Cannot read ${url}: ${error.message}`, { transient: error.transient });
  } finally {
    client.close();
  }
}

/** Runs the converting process; resolves with why the spreadsheet could not be read, or undefined when it was. */
function convert(input: string, output: string, deadlineSeconds: number, signal: AbortSignal): Promise<string | undefined> {
  const node = nodeChild(CHILD_SCRIPT, [extensionFile('excel'), input, output, String(deadlineSeconds)]);
  const { command, args } = confined(node, { memory: CHILD_MEMORY_BYTES, readOnly: [] });
  const child = spawn(command, args, { env: node.env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { if (stderr.length < ERROR_CHARACTERS) stderr += chunk.toString(); });
  let outcome: string | undefined;
  // Killed outright: a process spinning on a crafted file has nothing to save.
  const stop = (reason: string): void => {
    outcome ??= reason;
    signalProcessGroup(child, 'SIGKILL');
  };
  const timer = setTimeout(() => { stop(`reading it took longer than ${String(deadlineSeconds)} s (limits.spreadsheet_seconds), so it was stopped`); }, deadlineSeconds * 1000);
  const abort = (): void => { stop('the sync was stopped'); };
  signal.addEventListener('abort', abort, { once: true });
  return new Promise((resolve, reject) => {
    child.once('error', (error) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
      if (signal.aborted) {
        reject(signal.reason as Error);
        return;
      }
      resolve(outcome ?? (code === 0 ? undefined : stderr.trim().split('\n').slice(0, 2).join(' ').slice(0, ERROR_CHARACTERS) || `the reading process ended with code ${String(code)}`));
    });
  });
}
