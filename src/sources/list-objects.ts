import path from 'node:path';
import { BucketError, keyOf } from '../object-storage/index.ts';
import { formatOf, type SourceFile } from './list-source-files.ts';
import type { ObjectStore } from './object-store.ts';
import { SyncFailedError } from './sync-failed-error.ts';

/**
 * The objects under the store's prefix that Quarry can load and whose key, relative to the prefix, matches
 * `pattern` as a local file's relative path would; by URL, with each one's size, time and ETag from the listing
 * (a thousand keys a request; only the matching ones are kept).
 */
export async function listObjects(store: ObjectStore, pattern: string, signal?: AbortSignal): Promise<SourceFile[]> {
  const prefix = `${store.url}/`;
  const client = store.client(signal);
  const keyPrefix = keyOf(prefix);
  const files: SourceFile[] = [];
  try {
    for await (const page of client.pages(keyPrefix)) {
      for (const object of page) {
        const name = object.key.slice(keyPrefix.length);
        const format = formatOf(name);
        if (format === undefined || name.endsWith('/') || !path.posix.matchesGlob(name, pattern)) continue;
        files.push({
          path: `${client.url}/${object.key}`, name, size: object.size, mtimeMs: object.lastModified?.getTime() ?? 0, format, etag: object.etag,
        });
      }
    }
  } catch (error) {
    if (!(error instanceof BucketError) || signal?.aborted === true) throw error;
    throw new SyncFailedError(`Cannot list the objects under ${prefix}: ${error.message.replace(/^Could not list \S+: /, '')}`, { transient: error.transient });
  } finally {
    client.close();
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}
