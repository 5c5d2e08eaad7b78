import path from 'node:path';
import { z } from 'zod';
import type { ProjectPaths } from '../config/index.ts';

/**
 * One thing a backup holds, at the same path relative to the project folder as in the project, so a
 * restore puts each back where it was:
 * - `database`: a SQLite database, copied by SQLite's online backup (consistent while Quarry writes it);
 * - `file`: a small file copied whole (configuration, keys);
 * - `folder`: a tree of files copied whole (dbt models, source files: an editor or a program may rewrite
 *   them in place, which would change a hard-linked backup too);
 * - `immutable-folder`: the lake's data files, which are written once and never changed, so they are
 *   hard-linked where the backup is on the same file system (no space, no time) and copied otherwise.
 */
export interface BackupItem {
  readonly kind: 'database' | 'file' | 'folder' | 'immutable-folder';
  /** Relative to the project folder. */
  readonly path: string;
  /** Subfolders of a `folder` item left out: what the project rebuilds by itself. */
  readonly skip?: readonly string[];
}

/**
 * Everything of a project a restore needs, in the order a backup takes it: the platform DB before the
 * warehouse catalog, so a sync that commits in between is caught by the quiet-moment check rather than
 * leaving a ledger that is newer than the warehouse.
 */
export function backupItems(paths: ProjectPaths): readonly BackupItem[] {
  const relative = (absolute: string): string => path.relative(paths.root, absolute);
  return [
    { kind: 'database', path: relative(paths.platformDb) },
    { kind: 'database', path: relative(path.join(paths.dashboardHome, 'superset.db')) },
    { kind: 'database', path: relative(paths.lakeCatalogFile) },
    { kind: 'immutable-folder', path: relative(paths.lakeDataDir) },
    { kind: 'file', path: relative(paths.projectFile) },
    { kind: 'file', path: relative(paths.sourcesFile) },
    { kind: 'file', path: relative(paths.secretKeyFile) },
    { kind: 'file', path: relative(paths.envFile) },
    { kind: 'file', path: relative(path.join(paths.dashboardHome, 'secret.key')) },
    { kind: 'file', path: relative(path.join(paths.dashboardHome, 'service-account.password')) },
    { kind: 'folder', path: relative(paths.transformDir), skip: ['target', 'logs', 'dbt_packages'] },
    { kind: 'folder', path: relative(paths.dashboardsDir) },
    { kind: 'folder', path: relative(paths.dataDir) },
  ];
}

/** The file a backup folder is recognised by: what it holds and where it was taken from. */
export const BACKUP_MANIFEST = 'quarry-backup.json';

export const BackupManifest = z.object({
  format: z.literal(1),
  quarry_version: z.string(),
  project: z.string(),
  /** The project folder the backup was taken from; the lake catalog names its data folder by it. */
  project_root: z.string(),
  taken_at: z.string(),
  items: z.array(z.string()),
  /**
   * A lake whose data is in a bucket: the backup holds its catalog as of `snapshot_id` (null before the first
   * write), and the bucket keeps the files that snapshot reads for as long as the snapshot is retained.
   */
  lake: z.object({ data_path: z.string(), snapshot_id: z.number().nullable() }).optional(),
});
export type BackupManifest = z.infer<typeof BackupManifest>;
