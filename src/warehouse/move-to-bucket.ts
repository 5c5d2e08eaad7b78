import { copyFileSync, existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { BucketClient, keyOf } from '../object-storage/index.ts';
import { dataInBucket, type LakeLocation } from './lake-location.ts';
import { fingerprints } from './lake-fingerprints.ts';
import { takeWriterLockFile } from './writer-lock-file.ts';

/** The move could not be made, or did not check out; the lake is left as it was. */
export class LakeMoveError extends Error {}

export interface LakeMoveOutcome {
  /** The catalog named the bucket already: a move whose last step (project.yml) was cut short; nothing was copied now. */
  readonly alreadyMoved: boolean;
  readonly files: number;
  /** Files the bucket held already, from a move that was cut short: not uploaded again. */
  readonly filesAlreadyThere: number;
  readonly bytes: number;
  readonly tables: number;
  /** The catalog as it was, kept beside the new one until the user deletes it. */
  readonly previousCatalog: string;
}

/**
 * Moves an embedded lake's data files from its folder into a bucket, since DuckLake cannot change a lake's data path
 * in place: each file is uploaded byte for byte under the same relative key (the catalog names them relative to the
 * data path), a copy of the catalog is pointed at the bucket, every table read back through it must give the same
 * rows and hashes as before, and only then does the copy replace the catalog (the old one kept beside it). Snapshots
 * and history come along. Holds the writer's lock throughout; the local files are left for the user to delete.
 * A move cut short is run again: files already in the bucket at their size are not uploaded twice.
 */
export async function moveLakeToBucket(
  from: LakeLocation, to: LakeLocation, options: { writerLockFile: string; report: (line: string) => void },
): Promise<LakeMoveOutcome> {
  const { catalog } = from;
  if (catalog.kind !== 'sqlite' || to.catalog.kind !== 'sqlite') throw new LakeMoveError('Only the embedded catalog\'s lake is moved this way; a PostgreSQL catalog\'s data path is set when it is made');
  if (dataInBucket(from)) throw new LakeMoveError(`The lake's data is in ${from.dataPath} already`);
  if (to.objectStore === undefined) throw new LakeMoveError(`${to.dataPath} is not a bucket`);
  if (!existsSync(catalog.file)) throw new LakeMoveError(`There is no lake yet (${catalog.file}): set warehouse.data_path before the first sync, and the lake is made in the bucket`);
  const lock = await takeWriterLockFile(options.writerLockFile);
  if (storedDataPath(catalog.file) === to.dataPath) {
    await lock.release();
    return { alreadyMoved: true, files: 0, filesAlreadyThere: 0, bytes: 0, tables: 0, previousCatalog: `${catalog.file}.before-move` };
  }
  const client = new BucketClient(to.dataPath, to.objectStore);
  try {
    assertRelativePaths(catalog.file);
    const before = await fingerprints(from);
    options.report(`${String(before.size)} table(s) to check after the move`);
    const uploaded = await uploadDataFiles(from.dataPath, to.dataPath, client, options.report);
    const moving = `${catalog.file}.moving`;
    copyCatalogPointedAt(catalog.file, moving, to.dataPath);
    const after = await fingerprints({ ...to, catalog: { kind: 'sqlite', file: moving } }).catch((error: unknown) => {
      rmSync(moving, { force: true });
      throw new LakeMoveError(`The lake could not be read from ${to.dataPath}: ${error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error)}`, { cause: error });
    });
    const differing = [...before].filter(([table, fingerprint]) => after.get(table) !== fingerprint).map(([table]) => table);
    if (differing.length > 0 || after.size !== before.size) {
      rmSync(moving, { force: true });
      throw new LakeMoveError(`Read back from ${to.dataPath}, ${differing.join(', ') || 'the list of tables'} differ(s) from the lake as it is; nothing was changed`);
    }
    options.report(`Every table reads back the same from ${to.dataPath}`);
    const previousCatalog = `${catalog.file}.before-move`;
    replaceCatalog(catalog.file, moving, previousCatalog);
    return { alreadyMoved: false, ...uploaded, tables: before.size, previousCatalog };
  } finally {
    client.close();
    await lock.release();
  }
}

/** The data path the catalog names. */
function storedDataPath(catalogFile: string): string | undefined {
  const catalog = new DatabaseSync(catalogFile, { readOnly: true });
  try {
    const row = catalog.prepare("SELECT value FROM ducklake_metadata WHERE key = 'data_path' AND scope IS NULL").get();
    return typeof row?.value === 'string' ? row.value : undefined;
  } finally {
    catalog.close();
  }
}

/** Refuses a lake whose catalog names a file by an absolute path: such a file would not follow the data path. */
function assertRelativePaths(catalogFile: string): void {
  const catalog = new DatabaseSync(catalogFile, { readOnly: true });
  try {
    const absolute = catalog.prepare(`SELECT (SELECT count(*) FROM ducklake_data_file WHERE NOT path_is_relative)
      + (SELECT count(*) FROM ducklake_delete_file WHERE NOT path_is_relative)
      + (SELECT count(*) FROM ducklake_table WHERE NOT path_is_relative)
      + (SELECT count(*) FROM ducklake_schema WHERE NOT path_is_relative) AS n`).get();
    if (Number(absolute?.n ?? 0) > 0) throw new LakeMoveError('The lake names some of its files by absolute paths, which a move would not carry; nothing was changed');
  } finally {
    catalog.close();
  }
}

async function uploadDataFiles(
  folder: string, bucketDataPath: string, client: BucketClient, report: (line: string) => void,
): Promise<{ files: number; filesAlreadyThere: number; bytes: number }> {
  const prefix = keyOf(bucketDataPath);
  const files = existsSync(folder) ? readdirSync(folder, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()) : [];
  const keyOfFile = (file: string): string => `${prefix}${path.relative(folder, file).split(path.sep).join('/')}`;
  const ours = new Set(files.map((entry) => keyOfFile(path.join(entry.parentPath, entry.name))));
  const present = new Map<string, number>();
  for await (const page of client.pages(prefix)) {
    for (const object of page) {
      // The lake's maintenance deletes what its catalog does not name under its data path: nothing else may be there.
      if (!ours.has(object.key)) throw new LakeMoveError(`${bucketDataPath} holds ${client.url}/${object.key}, which is not this lake's: move the lake into an empty prefix; nothing was changed`);
      present.set(object.key, object.size);
    }
  }
  let bytes = 0;
  let filesAlreadyThere = 0;
  let lastReported = Date.now();
  for (const [index, entry] of files.entries()) {
    const file = path.join(entry.parentPath, entry.name);
    const key = keyOfFile(file);
    const { size } = statSync(file);
    bytes += size;
    if (present.get(key) === size) filesAlreadyThere += 1;
    else await client.upload(file, key);
    if (Date.now() - lastReported > 2_000 || index === files.length - 1) {
      report(`Uploaded ${String(index + 1)} of ${String(files.length)} file(s), ${(bytes / 1024 ** 2).toFixed(1)} MB`);
      lastReported = Date.now();
    }
  }
  return { files: files.length, filesAlreadyThere, bytes };
}

/** A consistent copy of the catalog at `copy`, with no WAL of its own, naming `dataPath` as the lake's data path. */
function copyCatalogPointedAt(catalogFile: string, copy: string, dataPath: string): void {
  rmSync(copy, { force: true });
  const catalog = new DatabaseSync(catalogFile);
  try {
    catalog.prepare('VACUUM INTO ?').run(copy);
  } finally {
    catalog.close();
  }
  const moved = new DatabaseSync(copy);
  try {
    moved.exec('PRAGMA journal_mode = DELETE');
    moved.prepare("UPDATE ducklake_metadata SET value = ? WHERE key = 'data_path' AND scope IS NULL").run(dataPath);
  } finally {
    moved.close();
  }
}

/**
 * Keeps a copy of the catalog as `previous` and puts `moving` in its place by one rename, so a crash leaves one
 * catalog or the other. The catalog's WAL goes first, checkpointed into it: SQLite would otherwise replay the old
 * catalog's WAL into the new file.
 */
function replaceCatalog(catalogFile: string, moving: string, previous: string): void {
  const catalog = new DatabaseSync(catalogFile);
  try {
    catalog.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    catalog.exec('PRAGMA journal_mode = DELETE');
  } finally {
    catalog.close();
  }
  for (const leftover of [`${catalogFile}-wal`, `${catalogFile}-shm`]) rmSync(leftover, { force: true });
  copyFileSync(catalogFile, previous);
  renameSync(moving, catalogFile);
}
