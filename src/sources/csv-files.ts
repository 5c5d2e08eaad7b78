import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, realpath, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DataRoots } from '../config/index.ts';
import { InvalidRequestError, NotFoundError, QuarryError } from '../errors.ts';
import type { LedgerEntry } from '../store/index.ts';
import { listSourceFiles } from './list-source-files.ts';

export class UnsafePathError extends InvalidRequestError {
  override readonly code = 'unsafe_path';
}

export class FileNotFoundError extends NotFoundError {
  override readonly code = 'file_not_found';
}

export class UploadTooLargeError extends QuarryError {
  readonly code = 'upload_too_large';
}

export class NotACsvSourceError extends InvalidRequestError {
  override readonly code = 'not_a_csv_source';
  constructor(name: string, type: string) {
    super(`The source "${name}" has type ${type}; only local_files and csv sources take CSV files`);
  }
}

/** A source whose files are not objects in a bucket has no objects to list. */
export class NotAnObjectSourceError extends InvalidRequestError {
  override readonly code = 'not_an_object_source';
  constructor(name: string) {
    super(`The source "${name}" does not read object storage; only a filesystem source over s3://, gs:// or az:// has objects`);
  }
}

export interface CsvLocation {
  readonly directory: string;
  readonly pattern: string;
}

export interface CsvFileEntry {
  readonly filename: string;
  readonly path: string;
  readonly size: number;
  readonly modified: string | null;
  readonly onDisk: boolean;
  readonly loaded: boolean;
  readonly rowsLoaded: number;
  /** `unreadable`: DuckDB cannot read this content of the file; the reason is in the source's log. */
  readonly status: 'success' | 'pending' | 'deleted' | 'unreadable';
}

/** `../../etc/x.csv`, `C:\x.csv`, control characters → a plain base name, or an error. */
export function sanitizeFileName(name: string): string {
  const base = path.basename(name.replaceAll('\\', '/')).replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (base === '' || base.startsWith('.')) throw new InvalidRequestError('The file needs a name that does not start with a dot');
  if (!base.toLowerCase().endsWith('.csv')) throw new InvalidRequestError(`Only .csv files can be uploaded, not "${base}"`);
  if (Buffer.byteLength(base) > 255) throw new InvalidRequestError('The file name is longer than 255 bytes');
  return base;
}

const UNFINISHED_UPLOAD_SUFFIX = '.tmp';
const UNFINISHED_UPLOAD = /^\.upload-[0-9a-f]{12}\.tmp$/;

/** Removes the temp files of uploads a stopped service never finished (a crash mid-upload); returns how many. */
export async function removeUnfinishedUploads(directory: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return 0; // no directory yet: nothing was uploaded
  }
  const unfinished = names.filter((name) => UNFINISHED_UPLOAD.test(name));
  await Promise.all(unfinished.map((name) => rm(path.join(directory, name), { force: true })));
  return unfinished.length;
}

/**
 * Streams an upload into the source's directory, which must lie in a data root: a temp file first, renamed over the target only when
 * complete, so a failed or oversized upload leaves nothing behind and an existing file is replaced atomically.
 */
export async function saveUpload(
  location: CsvLocation, dataRoots: DataRoots, fileName: string, content: Readable & { truncated?: boolean }, maxBytes: number,
  /** Runs once the file is written and before it replaces anything: a refusal here leaves the source's files as they were. */
  beforeCommit: () => Promise<void> = async () => undefined,
): Promise<string> {
  const name = sanitizeFileName(fileName);
  if (!path.matchesGlob(name, location.pattern)) {
    throw new InvalidRequestError(`"${name}" does not match the source's file_pattern ${location.pattern}, so it would never be loaded`);
  }
  // Before the folder is created (a symlinked parent would lead mkdir elsewhere) and after.
  dataRoots.assertContains(location.directory);
  await mkdir(location.directory, { recursive: true });
  dataRoots.assertContains(location.directory);
  const target = path.join(location.directory, name);
  const temporary = path.join(location.directory, `.upload-${randomBytes(6).toString('hex')}${UNFINISHED_UPLOAD_SUFFIX}`);
  try {
    await pipeline(content, createWriteStream(temporary, { flags: 'wx', mode: 0o644 }));
    // The multipart parser stops at the size limit and marks the stream truncated rather than failing it.
    if (content.truncated === true) {
      throw new UploadTooLargeError(`The file is larger than the ${String(Math.round(maxBytes / 1024 / 1024))} MB upload limit (limits.max_upload_mb)`);
    }
    await beforeCommit();
    await rename(temporary, target);
  } finally {
    await rm(temporary, { force: true });
  }
  return target;
}

/** Files on disk and files loaded (which may since have been deleted), with what was loaded from each. */
export async function listCsvFiles(location: CsvLocation, ledger: ReadonlyMap<string, LedgerEntry>, dataRoots: DataRoots): Promise<CsvFileEntry[]> {
  const onDisk = await listSourceFiles(location.directory, location.pattern, dataRoots).then((listing) => listing.files, () => []);
  const entries: CsvFileEntry[] = onDisk.map((file) => {
    const known = ledger.get(file.path);
    const current = known !== undefined && known.size === file.size && known.mtimeMs === file.mtimeMs;
    const unreadable = current && known.error !== null;
    const loaded = current && !unreadable;
    return {
      filename: path.basename(file.path), path: file.path, size: file.size, modified: new Date(file.mtimeMs).toISOString(),
      // An unreadable file may still have the rows of its last read in the table.
      onDisk: true, loaded, rowsLoaded: current ? known.rows : 0, status: unreadable ? 'unreadable' : loaded ? 'success' : 'pending',
    };
  });
  const present = new Set(onDisk.map((file) => file.path));
  for (const known of ledger.values()) {
    if (present.has(known.path) || (known.error !== null && known.rows === 0)) continue;
    entries.push({
      filename: path.basename(known.path), path: known.path, size: known.size, modified: new Date(known.mtimeMs).toISOString(),
      onDisk: false, loaded: true, rowsLoaded: known.rows, status: 'deleted',
    });
  }
  return entries.sort((a, b) => a.path.localeCompare(b.path));
}

/** Deletes one file of the source; the path must resolve (symlinks included) inside its directory and match its pattern. */
export async function deleteCsvFile(location: CsvLocation, filePath: string): Promise<string> {
  if (!path.isAbsolute(filePath) || filePath.includes('\0')) throw new UnsafePathError('file_path must be the full path of a file of this source');
  let directory: string;
  try {
    directory = await realpath(location.directory);
  } catch {
    throw new FileNotFoundError(`No file ${filePath}: the source's directory ${location.directory} does not exist`);
  }
  let resolved: string;
  try {
    resolved = await realpath(filePath);
  } catch {
    const lexical = path.resolve(filePath);
    if (!isInside(lexical, location.directory) && !isInside(lexical, directory)) throw new UnsafePathError('The path is outside the source\'s directory');
    throw new FileNotFoundError(`No file ${filePath}`);
  }
  if (!isInside(resolved, directory)) throw new UnsafePathError('The path is outside the source\'s directory');
  const relative = path.relative(directory, resolved);
  if (!path.matchesGlob(relative, location.pattern)) throw new UnsafePathError(`The file does not match the source's file_pattern ${location.pattern}`);
  if (!(await stat(resolved)).isFile()) throw new UnsafePathError('The path is not a file');
  await unlink(resolved);
  return resolved;
}

function isInside(candidate: string, directory: string): boolean {
  const relative = path.relative(directory, candidate);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}
