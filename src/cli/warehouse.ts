import {
  configWithSetting, configWithSettings, loadEnvironment, loadProjectConfig, projectPaths, setProjectSetting, setProjectSettings, type ProjectSetting,
} from '../config/index.ts';
import type { AppContext } from '../context.ts';
import { BucketError } from '../object-storage/index.ts';
import { runningServer } from '../os/index.ts';
import {
  CatalogMoveError, CatalogUnreachableError, dataInBucket, lakeLocation, LakeMoveError, moveCatalogToPostgres, moveLakeToBucket, type LakeMoveOutcome,
} from '../warehouse/index.ts';
import { snapshotReport } from '../jobs/index.ts';
import type { JobRecord } from '../store/index.ts';
import { CliError } from './cli-error.ts';
import { textTable } from './text-table.ts';
import { withProject } from './with-project.ts';

/** One line per snapshot, newest first: id, time, the job that made it and the tables it changed. */
export async function listWarehouseSnapshots(project: string, limit: number, env: NodeJS.ProcessEnv): Promise<string> {
  return withProject(project, env, async (ctx) => {
    const snapshots = await snapshotReport(ctx.readers, ctx.store, limit);
    const rows = snapshots.map((snapshot) => [
      String(snapshot.id), snapshot.time,
      snapshot.job === null ? '—' : `${snapshot.job.kind} ${snapshot.job.target} (job ${String(snapshot.job.id)})`,
      snapshot.tablesChanged.join(', ') || '—',
    ]);
    return textTable(['SNAPSHOT', 'TIME', 'JOB', 'TABLES CHANGED'], rows);
  });
}

/** Restores a source's raw tables to before a sync, in this process, as a job; resolves with its last line. */
export async function restoreSource(project: string, source: string, beforeSync: number, env: NodeJS.ProcessEnv): Promise<string> {
  return withProject(project, env, async (ctx) => {
    const job = await ctx.jobs.startRestore(source, { beforeSync, requestedBy: 'cli' });
    await endOf(ctx, job, `the restore of ${source}`);
    return `Restored the raw tables of ${source} to before the sync ${String(beforeSync)} (job ${String(job.id)}); its next sync is a full refresh`;
  });
}

/** Runs the lake's maintenance in this process, as a job; resolves with its last line. */
export async function maintainWarehouse(project: string, env: NodeJS.ProcessEnv): Promise<string> {
  return withProject(project, env, async (ctx) => {
    const job = await ctx.jobs.startMaintenance({ retentionDays: ctx.config.warehouse.snapshot_retention_days, requestedBy: 'cli' });
    await endOf(ctx, job, 'the warehouse maintenance');
    return `Warehouse maintenance finished (job ${String(job.id)}); see quarry logs for what it merged, expired and deleted`;
  });
}

/** Waits for `job` to end; throws a CliError with its error unless it succeeded. */
async function endOf(ctx: AppContext, job: JobRecord, what: string): Promise<void> {
  // Ctrl-C stops the job as a stopping service does: it is recorded interrupted, the lake untouched.
  const interrupt = (): void => { void ctx.jobs.close(0); };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  process.once('SIGHUP', interrupt);
  try {
    await ctx.jobs.lifecycle.idle();
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
    process.off('SIGHUP', interrupt);
  }
  const ended = await ctx.store.jobs.get(job.id);
  if (ended?.status !== 'success') throw new CliError(`${what} ${ended?.status === 'interrupted' ? 'was interrupted' : 'failed'}: ${ended?.error ?? 'unknown'}`);
}

/**
 * `quarry warehouse move-data s3://bucket/prefix`: moves the embedded lake's data files into the bucket object_store:
 * reaches, checks every table reads back the same, then points the catalog and project.yml at it.
 */
export async function moveWarehouseData(project: string, destination: string, env: NodeJS.ProcessEnv): Promise<string> {
  const paths = projectPaths(project);
  const config = loadProjectConfig(paths);
  const running = runningServer(paths);
  if (running !== undefined) throw new CliError(`Quarry is running for this project (process ${String(running.pid)}); stop it first: the lake must not change while it moves`);
  if (config.warehouse.catalog.kind !== 'sqlite') throw new CliError('Only the embedded catalog\'s lake moves this way: a PostgreSQL catalog keeps the data path it was made with (docs/operations.md)');
  if (config.object_store === undefined) throw new CliError('Add an object_store: section to project.yml first, with the endpoint and the .env variables of the bucket\'s keys (docs/operations.md, "The lake in a bucket")');
  const destinationConfig = configWithSetting(paths, ['warehouse', 'data_path'], destination);
  const projectEnv = loadEnvironment(paths, env);
  const from = lakeLocation(paths, config, projectEnv);
  const to = lakeLocation(paths, destinationConfig, projectEnv);
  let moved: LakeMoveOutcome;
  try {
    moved = await moveLakeToBucket(from, to, { writerLockFile: paths.writerLockFile, report: (line) => { console.error(line); } });
  } catch (error) {
    if (error instanceof LakeMoveError || error instanceof BucketError) throw new CliError(error.message);
    throw error;
  }
  setProjectSetting(paths, ['warehouse', 'data_path'], destination);
  if (moved.alreadyMoved) return `The lake's catalog names ${to.dataPath} already (a move cut short before its last step): project.yml's warehouse.data_path is now ${destination}.`;
  return [
    `Moved the lake's data into ${to.dataPath}: ${String(moved.files)} file(s), ${(moved.bytes / 1024 ** 2).toFixed(1)} MB`
    + `${moved.filesAlreadyThere > 0 ? ` (${String(moved.filesAlreadyThere)} already there)` : ''}; ${String(moved.tables)} table(s) read back the same.`,
    `project.yml's warehouse.data_path is now ${destination}. Start Quarry as before.`,
    `Kept until you delete them: the old data in ${from.dataPath} and the old catalog in ${moved.previousCatalog}.`,
  ].join('\n');
}

/**
 * `quarry warehouse move-catalog --to postgres://…`: copies the embedded lake's catalog into a schema of a PostgreSQL
 * database (snapshots and history kept, the data files where they are), checks every table reads back the same
 * through it, then points project.yml's warehouse at it, so that every process of a deployment opens the same lake.
 */
export async function moveWarehouseCatalog(project: string, to: string, schema: string | undefined, env: NodeJS.ProcessEnv): Promise<string> {
  const paths = projectPaths(project);
  const config = loadProjectConfig(paths);
  const running = runningServer(paths);
  if (running !== undefined) throw new CliError(`Quarry is running for this project (process ${String(running.pid)}); stop it first: the lake must not change while its catalog is copied`);
  if (config.warehouse.catalog.kind !== 'sqlite') throw new CliError('project.yml\'s warehouse.catalog names a PostgreSQL catalog already: there is no embedded catalog to copy');
  const projectEnv = loadEnvironment(paths, env);
  const from = lakeLocation(paths, config, projectEnv);
  // The data stays where it is, and a PostgreSQL catalog needs its place written down.
  const settings: ProjectSetting[] = [
    [['warehouse', 'catalog'], to], [['warehouse', 'data_path'], from.dataPath],
    ...schema === undefined ? [] : [[['warehouse', 'metadata_schema'], schema] as const],
  ];
  const destination = lakeLocation(paths, configWithSettings(paths, settings), projectEnv);
  if (destination.catalog.kind !== 'postgres') throw new CliError('--to must be a PostgreSQL address such as postgres://quarry@db.example.com:5432/analytics');
  let moved;
  try {
    moved = await moveCatalogToPostgres(from, destination, {
      writerLockFile: paths.writerLockFile, report: (line) => { console.error(line); }, whenCopied: () => { setProjectSettings(paths, settings); },
    });
  } catch (error) {
    if (error instanceof CatalogMoveError || error instanceof CatalogUnreachableError) throw new CliError(error.message);
    throw error;
  }
  const started = runningServer(paths);
  return [
    ...started === undefined ? [] : [`A Quarry started for this project meanwhile (process ${String(started.pid)}): restart it, or it goes on writing the embedded catalog.`],
    `Copied the lake's catalog into ${to} (schema ${destination.catalog.metadataSchema}): ${String(moved.catalogRows)} row(s); ${String(moved.tables)} table(s) read back the same.`,
    `project.yml's warehouse.catalog is now ${to}, its data_path ${from.dataPath}. Start Quarry as before.`,
    ...dataInBucket(from) ? [] : [`The data stays in ${from.dataPath}: every process must reach it at that path (or move it into a bucket first: quarry warehouse move-data).`],
    `Kept until you delete it: ${paths.lakeCatalogFile}.`,
  ].join('\n');
}
