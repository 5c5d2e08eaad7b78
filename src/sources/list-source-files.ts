import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { DataRoots } from '../config/index.ts';
import { SyncFailedError } from './sync-failed-error.ts';

export const FILE_FORMATS = ['csv', 'json', 'parquet', 'xlsx'] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];

const FORMAT_BY_EXTENSION: Record<string, FileFormat> = {
  '.csv': 'csv', '.tsv': 'csv', '.txt': 'csv', '.json': 'json', '.jsonl': 'json', '.ndjson': 'json', '.parquet': 'parquet', '.xlsx': 'xlsx',
};

export interface SourceFile {
  readonly path: string;
  readonly name: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly format: FileFormat;
  /** An object's ETag, which another upload of it changes whatever its size and time; none for a local file. */
  readonly etag?: string;
  /** Where its content is read from when not `path`: a spreadsheet's Parquet stand-in (xlsx-stand-ins.ts). */
  readonly content?: string;
}

export function formatOf(file: string): FileFormat | undefined {
  return FORMAT_BY_EXTENSION[path.extname(file).toLowerCase()];
}

export interface SourceFileListing {
  readonly files: SourceFile[];
  /** Files matching the pattern whose real path (through a symlink) is outside every data root: never read. */
  readonly outsideDataRoots: string[];
}

/**
 * The regular files under `directory` matching `pattern` that Quarry can load, by path. The folder and each file
 * are followed through symlinks: a folder outside the data roots is refused, a file leading outside is set aside.
 */
export async function listSourceFiles(directory: string, pattern: string, dataRoots: DataRoots): Promise<SourceFileListing> {
  const problem = dataRoots.problemWith(directory);
  if (problem !== undefined) throw new SyncFailedError(problem);
  const recursive = pattern.includes('/') || pattern.includes('**');
  const entries = await readdir(directory, { recursive, withFileTypes: true });
  const candidates = entries
    .filter((entry) => entry.isFile() || entry.isSymbolicLink())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((absolute) => formatOf(absolute) !== undefined && path.matchesGlob(path.relative(directory, absolute), pattern));
  const outsideDataRoots: string[] = [];
  const found = await Promise.all(candidates.map(async (absolute): Promise<SourceFile | undefined> => {
    // Node's recursive listing may descend into a symlinked folder (readdirSync does), so every file is followed.
    const real = await realpath(absolute).catch(() => undefined);
    if (real === undefined) return undefined; // a dangling link
    if (!dataRoots.contains(real)) {
      outsideDataRoots.push(absolute);
      return undefined;
    }
    const info = await stat(real);
    const format = formatOf(absolute);
    if (!info.isFile() || format === undefined) return undefined;
    return { path: absolute, name: path.relative(directory, absolute), size: info.size, mtimeMs: Math.trunc(info.mtimeMs), format };
  }));
  return {
    files: found.filter((file) => file !== undefined).sort((a, b) => a.path.localeCompare(b.path)),
    outsideDataRoots: outsideDataRoots.sort(),
  };
}

/** Reads of 1 MiB: with the default 64 KiB the system calls cost a third of hashing a large file. */
const HASH_READ_BYTES = 1024 * 1024;

export async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file, { highWaterMark: HASH_READ_BYTES }), hash);
  return hash.digest('hex');
}
