import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { glob, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

export const FILE_FORMATS = ['csv', 'json', 'parquet'] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];

const FORMAT_BY_EXTENSION: Record<string, FileFormat> = {
  '.csv': 'csv', '.tsv': 'csv', '.txt': 'csv', '.json': 'json', '.jsonl': 'json', '.ndjson': 'json', '.parquet': 'parquet',
};

export interface SourceFile {
  readonly path: string;
  readonly name: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly format: FileFormat;
}

export function formatOf(file: string): FileFormat | undefined {
  return FORMAT_BY_EXTENSION[path.extname(file).toLowerCase()];
}

/** The regular files under `directory` matching `pattern` that Quarry can load, by path. */
export async function listSourceFiles(directory: string, pattern: string): Promise<SourceFile[]> {
  const found: SourceFile[] = [];
  for await (const relative of glob(pattern, { cwd: directory })) {
    const absolute = path.join(directory, relative);
    const format = formatOf(absolute);
    if (format === undefined) continue;
    const info = await stat(absolute);
    if (!info.isFile()) continue;
    found.push({ path: absolute, name: relative, size: info.size, mtimeMs: Math.trunc(info.mtimeMs), format });
  }
  return found.sort((a, b) => a.path.localeCompare(b.path));
}

export async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}
