import path from 'node:path';
import { quoteLiteral, type DuckDBConnection } from '../warehouse/index.ts';
import { formatOf, type SourceFile } from './list-source-files.ts';
import type { ObjectStore } from './object-store.ts';
import { SyncFailedError } from './sync-failed-error.ts';

/**
 * The objects under the store's prefix that Quarry can load and whose key, relative to the prefix, matches
 * `pattern` as a local file's relative path would; by URL. Their size and last-modified time come from the
 * listing: read_blob reads an object's content only when the `content` column is selected.
 */
export async function listObjects(connection: DuckDBConnection, store: ObjectStore, pattern: string): Promise<SourceFile[]> {
  const prefix = `${store.url}/`;
  let listed: Record<string, unknown>[];
  try {
    const reader = await connection.runAndReadAll(
      `SELECT filename, size::BIGINT AS size, epoch_ms(last_modified)::BIGINT AS mtime_ms FROM read_blob(${quoteLiteral(`${prefix}**`)})`,
    );
    listed = reader.getRowObjects();
  } catch (error) {
    throw new SyncFailedError(`Cannot list the objects under ${prefix}: ${store.describe(error)}`);
  }
  return listed.flatMap((row): SourceFile[] => {
    const url = String(row.filename);
    const name = url.startsWith(prefix) ? url.slice(prefix.length) : url;
    const format = formatOf(name);
    if (format === undefined || !path.posix.matchesGlob(name, pattern)) return [];
    return [{ path: url, name, size: Number(row.size), mtimeMs: Number(row.mtime_ms), format }];
  }).sort((a, b) => a.path.localeCompare(b.path));
}
