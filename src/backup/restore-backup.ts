import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { loadEnvironment, loadProjectConfig, projectPaths, type ProjectPaths } from '../config/index.ts';
import { BucketClient, keyOf, objectStorageAccess } from '../object-storage/index.ts';
import { BACKUP_MANIFEST, BackupManifest, backupItems } from './backup-contents.ts';
import { copyTree } from './copy-tree.ts';
import { BackupError } from './errors.ts';

export interface RestoreSummary {
  readonly project: string;
  readonly items: readonly string[];
  readonly files: number;
  readonly takenAt: string;
}

/**
 * Puts a backup back into a folder that holds no project (a fresh one, or the old one moved away), so a
 * restore never overwrites anything: the databases and configuration are copied, the lake's data files
 * linked (the lake's writer points the catalog at the new folder's data at the first start).
 */
export function restoreBackup(from: string, paths: ProjectPaths): RestoreSummary {
  const backupFolder = path.resolve(from);
  const manifest = readManifest(backupFolder);
  if (existsSync(paths.projectFile) || existsSync(paths.platformDb)) {
    throw new BackupError(`${paths.root} already holds a project; restore into an empty folder (move the old one away first)`);
  }
  mkdirSync(paths.root, { recursive: true });
  let files = 0;
  const restored: string[] = [];
  for (const item of backupItems(paths)) {
    if (!manifest.items.includes(item.path)) continue;
    const source = path.join(backupFolder, item.path);
    const target = path.join(paths.root, item.path);
    mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    if (item.kind === 'database' || item.kind === 'file') {
      copyFileSync(source, target);
      files += 1;
    } else {
      files += copyTree(source, target, item.kind === 'immutable-folder' ? 'link' : 'copy');
    }
    restored.push(item.path);
  }
  for (const secret of [paths.secretKeyFile, paths.envFile]) if (existsSync(secret)) chmodSync(secret, 0o600);
  return { project: paths.root, items: restored, files, takenAt: manifest.taken_at };
}

function readManifest(folder: string): BackupManifest {
  const file = path.join(folder, BACKUP_MANIFEST);
  if (!existsSync(folder) || !existsSync(file)) throw new BackupError(`${folder} is not a Quarry backup (it has no ${BACKUP_MANIFEST})`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new BackupError(`${file} is not readable JSON: the backup is damaged`);
  }
  const checked = BackupManifest.safeParse(parsed);
  if (!checked.success) throw new BackupError(`${file} is of a format this Quarry does not know`);
  const manifest = checked.data;
  const missing = manifest.items.filter((item) => !existsSync(path.join(folder, item)));
  if (missing.length > 0) throw new BackupError(`The backup is incomplete: ${missing.join(', ')} missing from ${folder}`);
  return manifest;
}

/**
 * Refuses a backup of a lake in a bucket whose snapshot reads files the bucket no longer holds: the lake's maintenance
 * deletes a file once no retained snapshot needs it, so a backup older than warehouse.snapshot_retention_days may point
 * at files that are gone. The bucket is reached as the backup's own project.yml and .env say. Nothing is written.
 */
export async function assertLakeFilesPresent(backupFolder: string, env: Readonly<Record<string, string | undefined>>): Promise<void> {
  const manifest = readManifest(path.resolve(backupFolder));
  if (manifest.lake === undefined) return;
  const backedUp = projectPaths(path.resolve(backupFolder));
  const config = loadProjectConfig(backedUp);
  if (config.object_store === undefined) throw new BackupError(`The backup's project.yml has no object_store: section to reach ${manifest.lake.data_path} with`);
  const access = objectStorageAccess(config.object_store, loadEnvironment(backedUp, env));
  const dataPath = manifest.lake.data_path;
  const needed = new Set(filesReadBy(backedUp.lakeCatalogFile).map((file) => `${dataPath}${file}`));
  const client = new BucketClient(dataPath, access);
  try {
    for await (const page of client.pages(keyOf(dataPath))) for (const object of page) needed.delete(`${client.url}/${object.key}`);
  } finally {
    client.close();
  }
  if (needed.size > 0) {
    throw new BackupError(`The backup's snapshot ${String(manifest.lake.snapshot_id)} reads ${String(needed.size)} file(s) no longer in ${dataPath} `
      + `(such as ${[...needed][0] ?? ''}): the lake's maintenance deleted them once the snapshot expired. Restore a newer backup.`);
  }
}

/** The data and delete files the catalog's latest snapshot reads, relative to the lake's data path. */
function filesReadBy(catalogFile: string): string[] {
  if (!existsSync(catalogFile)) return [];
  const catalog = new DatabaseSync(catalogFile, { readOnly: true });
  try {
    const rows = catalog.prepare(`
      SELECT s.path || t.path || f.path AS file FROM ducklake_data_file f
        JOIN ducklake_table t ON t.table_id = f.table_id AND t.end_snapshot IS NULL JOIN ducklake_schema s ON s.schema_id = t.schema_id AND s.end_snapshot IS NULL
        WHERE f.end_snapshot IS NULL
      UNION ALL
      SELECT s.path || t.path || f.path FROM ducklake_delete_file f
        JOIN ducklake_table t ON t.table_id = f.table_id AND t.end_snapshot IS NULL JOIN ducklake_schema s ON s.schema_id = t.schema_id AND s.end_snapshot IS NULL
        WHERE f.end_snapshot IS NULL`).all();
    return rows.map((row) => String(row.file));
  } finally {
    catalog.close();
  }
}
