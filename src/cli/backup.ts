import path from 'node:path';
import {
  assertLakeFilesPresent, backupProjectToBucket, lakeBucketOf, restoreBackup, restoreFromBucket, takeBackup, type RestoreSummary,
} from '../backup/index.ts';
import { isObjectUrl, loadProjectConfig, projectPaths, URL_STYLES, type ObjectStoreConfig } from '../config/index.ts';
import { SERVICE_VERSION } from '../version.ts';
import { objectStorageAccess, type ObjectStorageAccess } from '../object-storage/index.ts';
import { CliError } from './cli-error.ts';

/** `quarry backup DIR|s3://bucket/prefix`: a consistent copy of the project, taken while it runs, into a folder or a bucket. */
export async function backupProject(
  into: string, options: { project: string; waitSeconds?: number; keep?: number | undefined }, env: NodeJS.ProcessEnv,
): Promise<string> {
  const paths = projectPaths(options.project);
  const config = loadProjectConfig(paths);
  if (config.warehouse.catalog.kind === 'postgres') {
    throw new CliError('This project\'s warehouse is a shared lake with a PostgreSQL catalog, which quarry backup cannot copy consistently: back it up as docs/operations.md ("The lake\'s catalog in PostgreSQL") says');
  }
  const lakeBucket = lakeBucketOf(config);
  const report = (line: string): void => { console.error(line); };
  const covers = lakeBucket === undefined ? '' : ` The lake's data stays in ${lakeBucket}: the backup holds its catalog, restorable while warehouse.snapshot_retention_days keeps that snapshot.`;
  if (isObjectUrl(into)) {
    const summary = await backupProjectToBucket({ paths, config, env, quarryVersion: SERVICE_VERSION }, into, { keep: options.keep, waitSeconds: options.waitSeconds, report });
    const pruned = summary.removed.length === 0 ? '' : ` Deleted ${String(summary.removed.length)} older backup(s) to keep ${String(options.keep)}.`;
    return `Backed up ${config.name} into ${summary.url} (${String(summary.files)} files, ${(summary.bytes / 1024 ** 2).toFixed(1)} MB).${pruned}${covers}`;
  }
  if (options.keep !== undefined) throw new CliError('--keep prunes backups in a bucket; a folder backup is one folder of its own');
  const summary = await takeBackup({ paths, projectName: config.name, quarryVersion: SERVICE_VERSION, into, waitSeconds: options.waitSeconds, lakeBucket, report });
  return `Backed up ${config.name} into ${summary.folder}: ${summary.items.join(', ')} (${String(summary.files)} files).${covers}`;
}

/** How `quarry restore s3://...` reaches the bucket: there is no project yet to say, so the command line does, and the shell's AWS_* variables hold the keys. */
export interface RestoreBucketOptions {
  readonly endpoint?: string | undefined;
  readonly region?: string | undefined;
  readonly urlStyle?: string | undefined;
  readonly ssl: boolean;
}

/** `quarry restore DIR|s3://bucket/prefix`: the backup put back into a folder that holds no project. */
export async function restoreProject(from: string, options: { project: string } & RestoreBucketOptions, env: NodeJS.ProcessEnv): Promise<string> {
  const paths = projectPaths(options.project);
  let summary: RestoreSummary & { url?: string };
  if (isObjectUrl(from)) {
    summary = await restoreFromBucket(from, restoreAccess(options, env), paths, env);
  } else {
    await assertLakeFilesPresent(from, env);
    summary = restoreBackup(from, paths);
  }
  return [
    `Restored the backup of ${summary.takenAt}${summary.url === undefined ? '' : ` (${summary.url})`} into ${summary.project} (${String(summary.files)} files).`,
    `Start it with: quarry start --project ${path.relative(process.cwd(), summary.project) || '.'}`,
  ].join('\n');
}

function restoreAccess(options: RestoreBucketOptions, env: NodeJS.ProcessEnv): ObjectStorageAccess {
  const urlStyle = options.urlStyle;
  if (urlStyle !== undefined && !(URL_STYLES as readonly string[]).includes(urlStyle)) throw new CliError(`--url-style is path or vhost, not ${urlStyle}`);
  const hasKeys = env.AWS_ACCESS_KEY_ID !== undefined || env.AWS_SECRET_ACCESS_KEY !== undefined;
  const config: ObjectStoreConfig = {
    endpoint: options.endpoint, region: options.region, url_style: urlStyle as ObjectStoreConfig['url_style'], use_ssl: options.ssl,
    ...hasKeys ? { access_key_id_env: 'AWS_ACCESS_KEY_ID', secret_access_key_env: 'AWS_SECRET_ACCESS_KEY' } : {},
  };
  return objectStorageAccess(config, env);
}
