import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ProjectPaths } from '../config/index.ts';
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
