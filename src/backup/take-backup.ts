import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ProjectPaths } from '../config/index.ts';
import { BACKUP_MANIFEST, backupItems, type BackupItem, type BackupManifest } from './backup-contents.ts';
import { copyTree } from './copy-tree.ts';
import { BackupError } from './errors.ts';
import { jobsAreUnderWay, readJobsFingerprint } from './quiet-moment.ts';
import { copySqliteDatabase } from './sqlite-copy.ts';

export interface BackupOptions {
  readonly paths: ProjectPaths;
  readonly projectName: string;
  readonly quarryVersion: string;
  /** The folder to create; it must not exist yet, or be empty. */
  readonly into: string;
  /** How long to wait for running jobs to end before giving up. */
  readonly waitSeconds?: number;
  /** Where the lake's data is when it is in a bucket: the backup then records the snapshot it covers instead of copying files. */
  readonly lakeBucket?: string | undefined;
  readonly report?: (line: string) => void;
}

export interface BackupSummary {
  readonly folder: string;
  readonly items: readonly string[];
  readonly files: number;
  /** How many times the copy was taken: more than one when a job ran while it was being taken. */
  readonly attempts: number;
}

/**
 * Takes a consistent backup of a project, running or not: the databases by SQLite's online backup, the
 * lake's data files by hard link, the configuration by copy. The platform DB (file ledger, cursors) and the
 * lake catalog must agree, so the copy is taken at a moment no job runs, and taken again when one started
 * meanwhile. It is written beside `into` and renamed into place whole, so a failed backup leaves nothing.
 */
export async function takeBackup(options: BackupOptions): Promise<BackupSummary> {
  const { paths, report = () => undefined } = options;
  if (!existsSync(paths.projectFile)) throw new BackupError(`No Quarry project in ${paths.root}`);
  const into = path.resolve(options.into);
  refuseUnlessEmpty(into);
  if (isInside(into, paths.root)) throw new BackupError(`The backup folder ${into} is inside the project; choose a folder outside it`);
  const deadline = Date.now() + (options.waitSeconds ?? 600) * 1000;
  const partial = `${into}.partial-${String(process.pid)}`;
  for (let attempt = 1; ; attempt += 1) {
    const before = readJobsFingerprint(paths.platformDb);
    if (jobsAreUnderWay(before)) {
      if (Date.now() > deadline) throw new BackupError(`Jobs kept running for ${String(options.waitSeconds ?? 600)} s; no backup was taken. Try again when they end (after a crash, start Quarry once: it marks the jobs it finds unfinished interrupted).`);
      if (attempt === 1) report('Waiting for the running jobs to end...');
      await sleep(1000);
      continue;
    }
    rmSync(partial, { recursive: true, force: true });
    try {
      // A lake in a bucket keeps its files there; a data folder left from before its move is not the lake's.
      const items = backupItems(paths).filter((item) => options.lakeBucket === undefined || item.path !== path.relative(paths.root, paths.lakeDataDir));
      const copied = await copyItems(items, paths.root, partial);
      if (readJobsFingerprint(paths.platformDb) !== before) {
        report('A job ran while the backup was taken; taking it again.');
        rmSync(partial, { recursive: true, force: true });
        continue;
      }
      const manifest: BackupManifest = {
        format: 1, quarry_version: options.quarryVersion, project: options.projectName, project_root: paths.root,
        taken_at: new Date().toISOString(), items: copied.items,
        ...options.lakeBucket === undefined ? {} : { lake: { data_path: options.lakeBucket, snapshot_id: latestSnapshotIn(path.join(partial, path.relative(paths.root, paths.lakeCatalogFile))) } },
      };
      writeFileSync(path.join(partial, BACKUP_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
      rmSync(into, { recursive: true, force: true });
      renameSync(partial, into);
      return { folder: into, items: copied.items, files: copied.files, attempts: attempt };
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      throw error;
    }
  }
}

async function copyItems(items: readonly BackupItem[], root: string, into: string): Promise<{ items: string[]; files: number }> {
  mkdirSync(into, { recursive: true, mode: 0o700 });
  const copied: string[] = [];
  let files = 0;
  for (const item of items) {
    const from = path.join(root, item.path);
    if (!existsSync(from)) continue;
    const to = path.join(into, item.path);
    mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
    switch (item.kind) {
      case 'database':
        await copySqliteDatabase(from, to);
        files += 1;
        break;
      case 'file':
        copyFileSync(from, to);
        files += 1;
        break;
      case 'folder':
        files += copyTree(from, to, 'copy', item.skip);
        break;
      case 'immutable-folder':
        files += copyTree(from, to, 'link', item.skip);
        break;
    }
    copied.push(item.path);
  }
  return { items: copied, files };
}

/** The newest snapshot a copied catalog holds: what a backup of a lake in a bucket covers. */
function latestSnapshotIn(catalogFile: string): number | null {
  if (!existsSync(catalogFile)) return null;
  const catalog = new DatabaseSync(catalogFile, { readOnly: true });
  try {
    const latest = catalog.prepare('SELECT max(snapshot_id) AS id FROM ducklake_snapshot').get();
    return latest?.id === null || latest?.id === undefined ? null : Number(latest.id);
  } finally {
    catalog.close();
  }
}

function refuseUnlessEmpty(folder: string): void {
  if (!existsSync(folder)) return;
  if (!statSync(folder).isDirectory()) throw new BackupError(`${folder} exists and is not a folder`);
  if (readdirSync(folder).length > 0) throw new BackupError(`${folder} is not empty; back up into a new or empty folder`);
}

function isInside(folder: string, root: string): boolean {
  const relative = path.relative(root, folder);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
