import { existsSync } from 'node:fs';
import { configWithSetting, loadEnvironment, loadProjectConfig, projectPaths, setProjectSetting } from '../config/index.ts';
import { runningServer } from '../os/index.ts';
import { copyToPostgres, describePostgresStore, postgresStoreAddress, StoreCopyError } from '../store/index.ts';
import { describeError } from '../errors.ts';
import { CliError } from './cli-error.ts';

/**
 * `quarry store migrate --to postgres://…`: copies the project's embedded platform database (users, sessions,
 * keys, jobs, logs, schedules, alerts, test results, profiles) into a PostgreSQL store, checks every table's count,
 * and points project.yml's platform.store at it. platform.db is kept as it was.
 */
export async function migratePlatformStore(project: string, to: string, schema: string | undefined, env: NodeJS.ProcessEnv): Promise<string> {
  const paths = projectPaths(project);
  const config = loadProjectConfig(paths);
  const withStore = configWithSetting(paths, ['platform', 'store'], to);
  const schemaName = schema === undefined ? withStore.platform.schema : configWithSetting(paths, ['platform', 'schema'], schema).platform.schema;
  const store = withStore.platform.store;
  if (store.kind !== 'postgres') throw new CliError('--to must be a PostgreSQL address such as postgres://quarry@db.example.com:5432/quarry');
  const running = runningServer(paths);
  if (running !== undefined) throw new CliError(`Quarry is running for this project (process ${String(running.pid)}); stop it first: the platform database must not change while it is copied`);
  if (config.platform.store.kind === 'postgres') throw new CliError('project.yml\'s platform.store names a PostgreSQL store already: there is no embedded platform database to copy');
  if (!existsSync(paths.platformDb)) throw new CliError(`There is no platform database at ${paths.platformDb} to copy: start Quarry once, or set platform.store in project.yml by hand`);
  const address = postgresStoreAddress(store, schemaName, loadEnvironment(paths, env)[config.platform.password_env]);
  let copied;
  try {
    copied = await copyToPostgres(paths.platformDb, address, (line) => { console.error(line); });
  } catch (error) {
    if (error instanceof StoreCopyError) throw new CliError(error.message);
    throw new CliError(`Could not copy into ${describePostgresStore(store, schemaName)}: ${describeError(error)}`);
  }
  setProjectSetting(paths, ['platform', 'store'], to);
  if (schema !== undefined) setProjectSetting(paths, ['platform', 'schema'], schema);
  const total = [...copied.rows.values()].reduce((sum, rows) => sum + rows, 0);
  return [
    `Copied the platform database into ${to} (schema ${schemaName}): ${String(total)} row(s) in ${String(copied.rows.size)} tables, each table's count checked.`,
    `project.yml's platform.store is now ${to}. Start Quarry as before; every process of the deployment uses this store.`,
    `Kept until you delete it: ${paths.platformDb}.`,
  ].join('\n');
}
