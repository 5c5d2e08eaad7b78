import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { backupPlaceProblem, BUCKET_URL, BUCKET_URL_PROBLEM, isObjectUrl, loadEnvironment, type ProjectConfig, type ProjectPaths } from '../config/index.ts';
import { BucketClient, bucketOf, keyOf, objectStorageAccess, type ObjectStorageAccess } from '../object-storage/index.ts';
import { BACKUP_MANIFEST } from './backup-contents.ts';
import { BackupError } from './errors.ts';
import { assertLakeFilesPresent, restoreBackup, type RestoreSummary } from './restore-backup.ts';
import { takeBackup, type BackupOptions } from './take-backup.ts';

/** How a backup's folder in the bucket is named: by the time it was taken (to the millisecond), so names sort oldest first. */
const BACKUP_NAME = /^quarry-backup-\d{8}T\d{6}(\d{3})?Z$/;

/** An incomplete backup younger than this may still be uploading (a long one beside a scheduled one): it is left alone. */
const UPLOAD_GRACE_MS = 24 * 3_600_000;

export interface BucketBackupSummary {
  /** `s3://bucket/prefix/quarry-backup-<time>/` */
  readonly url: string;
  readonly files: number;
  readonly bytes: number;
  /** Backups deleted to keep `keep`: their URLs. */
  readonly removed: readonly string[];
}

/** A bucket and a prefix in it, as `s3://bucket/prefix` names them: the prefix ends with a slash unless empty. */
function split(url: string): { bucket: string; prefix: string } {
  if (!url.startsWith('s3://') || !BUCKET_URL.test(url)) throw new BackupError(`${url} is not a bucket: ${BUCKET_URL_PROBLEM}`);
  const prefix = keyOf(url).replace(/\/*$/, '');
  return { bucket: bucketOf(url), prefix: prefix === '' ? '' : `${prefix}/` };
}

/**
 * Takes a backup as `takeBackup` does (the same consistency: a moment no job runs) into a temporary folder, and uploads
 * it under `destination` as `quarry-backup-<time>/`, its manifest last, so a backup cut short has none and is never
 * restored. With `keep`, the oldest backups beyond that many are deleted afterwards, and any without a manifest older
 * than the newest one.
 */
export async function backupToBucket(
  options: Omit<BackupOptions, 'into'> & { destination: string; access: ObjectStorageAccess; keep?: number | undefined },
): Promise<BucketBackupSummary> {
  const { bucket, prefix } = split(options.destination);
  const report = options.report ?? (() => undefined);
  const client = new BucketClient(options.destination, options.access);
  const scratch = mkdtempSync(path.join(tmpdir(), 'quarry-bucket-backup-'));
  try {
    // Fails before the backup is taken when the bucket cannot be listed (missing, refused keys).
    await client.pages(prefix).next();
    const folder = path.join(scratch, 'backup');
    await takeBackup({ ...options, into: folder });
    const name = `quarry-backup-${new Date().toISOString().replace(/[-:.]/g, '')}`;
    const files = readdirSync(folder, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile())
      .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)))
      .sort((a, b) => Number(a === BACKUP_MANIFEST) - Number(b === BACKUP_MANIFEST));
    let bytes = 0;
    for (const [index, file] of files.entries()) {
      const local = path.join(folder, file);
      bytes += statSync(local).size;
      await client.upload(local, `${prefix}${name}/${file.split(path.sep).join('/')}`);
      if ((index + 1) % 50 === 0) report(`Uploaded ${String(index + 1)} of ${String(files.length)} file(s)`);
    }
    const removed = options.keep === undefined ? [] : await pruneBackups(client, prefix, options.keep);
    return { url: `s3://${bucket}/${prefix}${name}/`, files: files.length, bytes, removed: removed.map((old) => `s3://${bucket}/${prefix}${old}/`) };
  } finally {
    client.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** What a project's backup is taken from, and by which version of Quarry. */
export interface ProjectToBackUp {
  readonly paths: ProjectPaths;
  readonly config: ProjectConfig;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly quarryVersion: string;
}

/**
 * The lake's bucket prefix (ending with a slash) when its data is in one, which a backup then records instead of
 * copying the data; undefined for a lake on this machine.
 */
export function lakeBucketOf(config: ProjectConfig): string | undefined {
  const dataPath = config.warehouse.data_path;
  return dataPath !== undefined && isObjectUrl(dataPath) ? `${dataPath.replace(/\/+$/, '')}/` : undefined;
}

/** backupToBucket for a project, reaching the bucket as its object_store: section says. */
export async function backupProjectToBucket(
  project: ProjectToBackUp, destination: string, options: { keep?: number | undefined; waitSeconds?: number | undefined; report?: (line: string) => void },
): Promise<BucketBackupSummary> {
  const { paths, config } = project;
  if (config.object_store === undefined) throw new BackupError('A backup to a bucket is reached as project.yml\'s object_store: section says: add one first (docs/operations.md, "Backups off the machine")');
  const misplaced = backupPlaceProblem(destination, config.warehouse);
  if (misplaced !== undefined) throw new BackupError(`No backup was taken: ${misplaced}`);
  return backupToBucket({
    paths, projectName: config.name, quarryVersion: project.quarryVersion, lakeBucket: lakeBucketOf(config), ...options, destination,
    access: objectStorageAccess(config.object_store, loadEnvironment(paths, project.env)),
  });
}

/**
 * Restores into `paths` (a folder that holds no project) the backup at `source`: a backup's own URL, or a prefix,
 * whose newest complete backup is taken. Downloads it to a temporary folder first, so nothing is written into the
 * project before the whole backup is here, and a backup of a lake in a bucket whose files are gone is refused
 * (assertLakeFilesPresent, which reads `env` beside the backup's .env).
 */
export async function restoreFromBucket(
  source: string, access: ObjectStorageAccess, paths: ProjectPaths, env: Readonly<Record<string, string | undefined>>,
): Promise<RestoreSummary & { url: string }> {
  const { bucket, prefix } = split(source);
  const client = new BucketClient(source, access);
  const scratch = mkdtempSync(path.join(tmpdir(), 'quarry-bucket-restore-'));
  try {
    // A backup's own URL, or the newest complete backup under a prefix; a backup without its manifest is refused below.
    const chosen = BACKUP_NAME.test(prefix.split('/').at(-2) ?? '') ? { folder: prefix }
      : (await listBackups(client, prefix)).filter((backup) => backup.complete).map((backup) => ({ folder: `${prefix}${backup.name}/` })).at(-1);
    if (chosen === undefined) throw new BackupError(`There is no complete Quarry backup under s3://${bucket}/${prefix}`);
    const folder = path.join(scratch, 'backup');
    for await (const page of client.pages(chosen.folder)) {
      for (const object of page) {
        const relative = object.key.slice(chosen.folder.length);
        const target = path.resolve(folder, relative);
        if (relative === '' || !target.startsWith(`${folder}${path.sep}`)) throw new BackupError(`s3://${bucket}/${object.key} is not a file a backup holds`);
        await client.download(object.key, target);
      }
    }
    if (!existsSync(folder)) throw new BackupError(`s3://${bucket}/${chosen.folder} holds no backup`);
    await assertLakeFilesPresent(folder, env);
    return { ...restoreBackup(folder, paths), url: `s3://${bucket}/${chosen.folder}` };
  } finally {
    client.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The backups under `prefix`, oldest first, each with whether its manifest is there (a complete upload): the folders
 * are listed without their files, then each manifest is looked up.
 */
async function listBackups(client: BucketClient, prefix: string): Promise<{ name: string; complete: boolean }[]> {
  const names = (await client.folders(prefix)).filter((name) => BACKUP_NAME.test(name)).sort();
  const backups: { name: string; complete: boolean }[] = [];
  for (const name of names) backups.push({ name, complete: await client.exists(`${prefix}${name}/${BACKUP_MANIFEST}`) });
  return backups;
}

/**
 * Deletes the complete backups beyond the newest `keep`, and the incomplete ones (cut short) older than the newest
 * complete one and than a day: a younger one may still be uploading.
 */
async function pruneBackups(client: BucketClient, prefix: string, keep: number): Promise<string[]> {
  const backups = await listBackups(client, prefix);
  const complete = backups.filter((backup) => backup.complete).map((backup) => backup.name);
  const newest = complete.at(-1);
  const abandoned = `quarry-backup-${new Date(Date.now() - UPLOAD_GRACE_MS).toISOString().replace(/[-:.]/g, '')}`;
  const doomed = [
    ...complete.slice(0, Math.max(0, complete.length - keep)),
    ...backups.filter((backup) => !backup.complete && newest !== undefined && backup.name < newest && backup.name < abandoned).map((backup) => backup.name),
  ];
  for (const name of doomed) {
    // The manifest first: a backup half deleted is then an incomplete one, never restored.
    await client.delete([`${prefix}${name}/${BACKUP_MANIFEST}`]);
    for await (const page of client.pages(`${prefix}${name}/`)) await client.delete(page.map((object) => object.key));
  }
  return doomed.sort();
}
