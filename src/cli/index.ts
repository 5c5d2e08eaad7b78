import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ConfigError, describeError, QuarryError } from '../errors.ts';
import { LOG_FORMATS, type LogFormat } from '../logger.ts';
import { SERVICE_VERSION } from '../version.ts';
import { CliError } from './cli-error.ts';
import type { OAuthSetupOptions } from './oauth-setup.ts';
import type { SourceAddOptions } from './source-add.ts';
import type { SourceOAuthSetupOptions } from './source-oauth-setup.ts';

const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '..', '..');

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('expected a port number 0-65535 (0 picks a free one)');
  return port;
}

function parsePositiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new InvalidArgumentError('expected a positive whole number');
  return number;
}

/** `--log-format`: how the service's log lines are written; left out, pretty on a terminal and JSON elsewhere. */
function logFormatOption(): Option {
  return new Option('--log-format <format>', 'log lines as json or pretty (default: pretty on a terminal, json when piped)').choices(LOG_FORMATS);
}

/** Runs one command line; resolves to the process exit code. */
export async function runCli(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const program = new Command('quarry')
    .description('Quarry: load data, transform it with dbt, explore it in dashboards, behind one login')
    .version(SERVICE_VERSION)
    .showHelpAfterError()
    .exitOverride();

  program.command('init')
    .description('Create a project in DIR (default: the current folder)')
    .argument('[dir]', 'project folder', '.')
    .option('--name <name>', 'project name')
    .option('--organization <organization>', 'organization name')
    .option('--admin-email <email>', 'email of the first admin')
    .option('--admin-password <password>', 'password of the first admin (or set QUARRY_ADMIN_PASSWORD)')
    .option('--non-interactive', 'never prompt; fail when a value is missing')
    .option('--demo', 'add sample data and a local_files source')
    .action(async (dir: string, options: { name?: string; organization?: string; adminEmail?: string; adminPassword?: string; nonInteractive?: boolean; demo?: boolean }) => {
      const { initProject } = await import('./init.ts');
      const created = await initProject(dir, options, env);
      console.log(`Created project in ${created.root} with admin ${created.adminEmail}.\nStart it with: quarry start --project ${created.root}`);
    });

  program.command('start')
    .description('Serve the platform until interrupted')
    .option('--project <dir>', 'project folder', '.')
    .option('--host <host>', 'address to listen on')
    .option('--port <port>', 'port to listen on', parsePort)
    .option('--no-dashboard', 'do not start the dashboard tool')
    .option('--no-watcher', 'do not start the file watcher')
    .option('--no-jobs', 'with a shared platform store: leave the jobs to the workers (quarry worker)')
    .addOption(logFormatOption())
    .action(async (options: { project: string; host?: string; port?: number; dashboard: boolean; watcher: boolean; jobs: boolean; logFormat?: LogFormat }) => {
      const { servePlatform } = await import('./start.ts');
      await servePlatform(options, env, (url) => {
        console.log(`Quarry is running at ${url}  (Ctrl-C to stop)`);
      });
    });

  program.command('worker')
    .description('Run jobs (syncs, model runs, restores, maintenance) from the deployment\'s queue until interrupted, beside a quarry start sharing the platform store (platform.store: postgres://...)')
    .option('--project <dir>', 'project folder', '.')
    .option('--name <name>', 'the name the jobs it runs are recorded with (default: host:pid)')
    .option('--concurrency <n>', 'jobs at once (default: platform.job_concurrency)', parsePositiveInteger)
    .addOption(logFormatOption())
    .action(async (options: { project: string; name?: string; concurrency?: number; logFormat?: LogFormat }) => {
      const { runWorker } = await import('./worker.ts');
      await runWorker(options, env, (name) => {
        console.log(`Quarry worker ${name} is taking jobs  (Ctrl-C to stop)`);
      });
    });

  program.command('demo')
    .description('Create (once) and start the demo project')
    .option('--dir <dir>', 'demo project folder', path.join(REPOSITORY_ROOT, 'demo'))
    .option('--host <host>', 'address to listen on')
    .option('--port <port>', 'port to listen on', parsePort)
    .addOption(logFormatOption())
    .action(async (options: { dir: string; host?: string; port?: number; logFormat?: LogFormat }) => {
      const { ensureDemoProject } = await import('./demo.ts');
      const { servePlatform } = await import('./start.ts');
      const login = await ensureDemoProject(options.dir, env);
      await servePlatform({ project: login.root, ...options }, env, (url) => {
        console.log([
          '',
          `  Quarry demo is running at ${url}`,
          `  Sign in as ${login.email} with password ${login.password}`,
          '  (Ctrl-C to stop)',
          '',
        ].join('\n'));
      });
    });

  program.command('doctor')
    .description('Check Node, the Python environments, DuckDB, ports, disk, the warehouse, the platform database and the dashboard tool; say what to run for each problem')
    .option('--project <dir>', 'project folder', '.')
    .action(async (options: { project: string }) => {
      const { runDoctor } = await import('./doctor.ts');
      console.log(await runDoctor(options.project, env));
    });

  program.command('backup')
    .description('Take a consistent backup of the project, while it runs or not, into DIR (a new or empty folder) or a bucket (s3://bucket/prefix, reached as project.yml\'s object_store: says)')
    .argument('<destination>', 'backup folder, or s3://bucket/prefix')
    .option('--project <dir>', 'project folder', '.')
    .option('--wait <seconds>', 'how long to wait for running jobs to end', parsePositiveInteger, 600)
    .option('--keep <n>', 'in a bucket: keep the newest n backups under the prefix, delete older ones', parsePositiveInteger)
    .action(async (destination: string, options: { project: string; wait: number; keep?: number }) => {
      const { backupProject } = await import('./backup.ts');
      console.log(await backupProject(destination, { project: options.project, waitSeconds: options.wait, keep: options.keep }, env));
    });

  program.command('restore')
    .description('Restore a backup into a folder that holds no project: from DIR, or from a bucket (s3://bucket/prefix: its newest backup, or s3://bucket/prefix/quarry-backup-<time>), the keys in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY')
    .argument('<source>', 'backup folder, or s3://bucket/prefix')
    .option('--project <dir>', 'project folder to create', '.')
    .option('--endpoint <host:port>', 'the S3-compatible endpoint (AWS\'s when left out)')
    .option('--region <region>', 'the bucket\'s region')
    .option('--url-style <style>', 'path or vhost')
    .option('--no-ssl', 'plain HTTP to the endpoint')
    .action(async (source: string, options: { project: string; endpoint?: string; region?: string; urlStyle?: string; ssl: boolean }) => {
      const { restoreProject } = await import('./backup.ts');
      console.log(await restoreProject(source, options, env));
    });

  program.command('status')
    .description('Summarize a project and whether it is running')
    .option('--project <dir>', 'project folder', '.')
    .action(async (options: { project: string }) => {
      const { describeProjectStatus } = await import('./status.ts');
      console.log(await describeProjectStatus(options.project, env));
    });

  program.command('sync')
    .description('Sync a source (or with --all every enabled source) now, in this process (stop a running Quarry first, or use its Sync button)')
    .argument('[source]')
    .option('--project <dir>', 'project folder', '.')
    .option('--all', 'sync every enabled source, one line per source')
    .option('--full-refresh', 'reload everything instead of only what changed')
    .option('--since <date>', 'backfill: re-load from this day (YYYY-MM-DD) and merge, leaving other rows as they are')
    .option('--until <date>', 'backfill: the last day to re-load (default today)')
    .addOption(logFormatOption())
    .action(async (source: string | undefined, options: { project: string; all?: boolean; fullRefresh?: boolean; since?: string; until?: string; logFormat?: LogFormat }) => {
      const { syncAllSources, syncSource } = await import('./source-sync.ts');
      if (options.all === true) {
        if (source !== undefined || options.since !== undefined || options.until !== undefined || options.fullRefresh === true) {
          throw new CliError('--all takes no source name, --since, --until or --full-refresh');
        }
        console.log(await syncAllSources(options.project, env, options.logFormat));
        return;
      }
      if (source === undefined) throw new CliError('name a source to sync, or pass --all');
      console.log(await syncSource(options.project, source, options, env));
    });

  const source = program.command('source').description('Configure sources');
  source.command('add')
    .description('Add a source: a wizard, or with --type and --name the form for scripts')
    .option('--project <dir>', 'project folder', '.')
    .option('--type <type>', 'source type key, e.g. rest_api')
    .option('--name <name>', 'source name')
    .option('--set <key=value>', 'a field of the type\'s section (repeatable; dotted keys nest: endpoints.0.path=/users)', collect, [])
    .option('--secret <NAME=value>', 'a credential, saved in .env (repeatable)', collect, [])
    .option('--test', 'test the connection after adding')
    .option('--sync', 'run a first sync after adding')
    .option('--non-interactive', 'never prompt')
    .action(async (options: SourceAddOptions) => {
      const { addSource } = await import('./source-add.ts');
      console.log(await addSource(options, env));
    });
  source.command('list')
    .description('List the sources with their status')
    .option('--project <dir>', 'project folder', '.')
    .action(async (options: { project: string }) => {
      const { listSources } = await import('./source-sync.ts');
      console.log(await listSources(options.project, env));
    });
  source.command('test')
    .description('Check that a source can be read, without loading anything')
    .argument('<source>')
    .option('--project <dir>', 'project folder', '.')
    .action(async (name: string, options: { project: string }) => {
      const { testSource } = await import('./source-add.ts');
      console.log(await testSource(options.project, name, env));
    });

  const schedule = program.command('schedule').description('The project\'s schedules (schedules: in .quarry/project.yml)');
  schedule.command('list')
    .description('List the schedules with their next and last runs')
    .option('--project <dir>', 'project folder', '.')
    .action(async (options: { project: string }) => {
      const { listSchedules } = await import('./schedules.ts');
      console.log(await listSchedules(options.project, env));
    });
  schedule.command('run')
    .description('Run a schedule now, in this process (stop a running Quarry first, or use its Run now button)')
    .argument('<name>')
    .option('--project <dir>', 'project folder', '.')
    .action(async (name: string, options: { project: string }) => {
      const { runSchedule } = await import('./schedules.ts');
      console.log(await runSchedule(options.project, name, env));
    });

  const warehouse = program.command('warehouse').description('The lake\'s snapshots: list them, restore a source from them, maintain the lake, move its data into a bucket or its catalog into PostgreSQL');
  warehouse.command('snapshots')
    .description('List the latest snapshots: id, time, the job that made each and the tables it changed')
    .option('--project <dir>', 'project folder', '.')
    .option('--limit <n>', 'at most this many snapshots', parsePositiveInteger, 20)
    .action(async (options: { project: string; limit: number }) => {
      const { listWarehouseSnapshots } = await import('./warehouse.ts');
      console.log(await listWarehouseSnapshots(options.project, options.limit, env));
    });
  warehouse.command('restore')
    .description('Put a source\'s raw tables back as they were just before one of its syncs, as a new snapshot (stop a running Quarry first, or use POST /api/sources/{name}/restore)')
    .requiredOption('--source <name>', 'the source')
    .requiredOption('--before-sync <job id>', 'the sync job to go back before', parsePositiveInteger)
    .option('--project <dir>', 'project folder', '.')
    .action(async (options: { project: string; source: string; beforeSync: number }) => {
      const { restoreSource } = await import('./warehouse.ts');
      console.log(await restoreSource(options.project, options.source, options.beforeSync, env));
    });
  warehouse.command('maintain')
    .description('Merge small files, expire snapshots past warehouse.snapshot_retention_days and delete files no longer needed (a running Quarry does it daily)')
    .option('--project <dir>', 'project folder', '.')
    .action(async (options: { project: string }) => {
      const { maintainWarehouse } = await import('./warehouse.ts');
      console.log(await maintainWarehouse(options.project, env));
    });

  warehouse.command('move-data')
    .description('Move the embedded lake\'s data files into a bucket (s3://bucket/prefix, reached as object_store: says), check every table reads back the same, and point project.yml at it (stop Quarry first)')
    .argument('<destination>', 's3://bucket/prefix')
    .option('--project <dir>', 'project folder', '.')
    .action(async (destination: string, options: { project: string }) => {
      const { moveWarehouseData } = await import('./warehouse.ts');
      console.log(await moveWarehouseData(options.project, destination, env));
    });

  warehouse.command('move-catalog')
    .description('Copy the embedded lake\'s catalog (snapshots and history kept, data files where they are) into PostgreSQL, check every table reads back the same, and point project.yml at it, for a deployment (stop Quarry first)')
    .requiredOption('--to <address>', 'postgres://user@host:port/database (the password goes in .env as QUARRY_WAREHOUSE_PASSWORD)')
    .option('--schema <name>', 'the PostgreSQL schema of the catalog\'s tables (default quarry_lake)')
    .option('--project <dir>', 'project folder', '.')
    .action(async (options: { to: string; schema?: string; project: string }) => {
      const { moveWarehouseCatalog } = await import('./warehouse.ts');
      console.log(await moveWarehouseCatalog(options.project, options.to, options.schema, env));
    });

  const store = program.command('store').description('The platform\'s own state (users, sessions, keys, jobs, logs, schedules, alerts): move it to a PostgreSQL store several processes share');
  store.command('migrate')
    .description('Copy the embedded platform database into a PostgreSQL store, check every table\'s count, and point project.yml\'s platform.store at it (stop Quarry first)')
    .requiredOption('--to <address>', 'postgres://user@host:port/database (the password goes in .env as QUARRY_PLATFORM_PASSWORD)')
    .option('--schema <name>', 'the PostgreSQL schema of the platform\'s tables (default: platform.schema, quarry_platform)')
    .option('--project <dir>', 'project folder', '.')
    .action(async (options: { to: string; schema?: string; project: string }) => {
      const { migratePlatformStore } = await import('./platform-store.ts');
      console.log(await migratePlatformStore(options.project, options.to, options.schema, env));
    });

  program.command('query')
    .description('Run one read-only SQL query (SELECT, WITH, SHOW, DESCRIBE, EXPLAIN) on the warehouse and print the result')
    .argument('<sql>')
    .option('--project <dir>', 'project folder', '.')
    .option('--format <format>', 'table, csv or json', 'table')
    .option('--limit <rows>', 'at most this many rows (never more than limits.query_rows)', parsePositiveInteger)
    .action(async (sql: string, options: { project: string; format: string; limit?: number }) => {
      const { runQuery } = await import('./query.ts');
      console.log(await runQuery(sql, { project: options.project, format: options.format, limit: options.limit }, env));
    });

  program.command('run')
    .description('Run a dbt model and, unless --no-cascade, every model downstream of it')
    .argument('<model>')
    .option('--project <dir>', 'project folder', '.')
    .option('--no-cascade', 'run only this model')
    .addOption(logFormatOption())
    .action(async (model: string, options: { project: string; cascade: boolean; logFormat?: LogFormat }) => {
      const { runModel } = await import('./transform.ts');
      console.log(await runModel(options.project, model, options, env));
    });

  program.command('build')
    .description("dbt build: models, their tests, seeds and snapshots in dependency order (all, or dbt's selector syntax); exit code 1 when a model or test fails")
    .argument('[selector]', "dbt's selector, e.g. orders+ or tag:daily")
    .option('--project <dir>', 'project folder', '.')
    .action(async (selector: string | undefined, options: { project: string }) => {
      const { buildModels } = await import('./build.ts');
      console.log(await buildModels(options.project, selector, 'build', env));
    });

  program.command('test')
    .description("dbt test: run the data tests (all, or dbt's selector syntax) without building; exit code 1 when a test fails")
    .argument('[selector]', "dbt's selector, e.g. orders or test_type:generic")
    .option('--project <dir>', 'project folder', '.')
    .action(async (selector: string | undefined, options: { project: string }) => {
      const { buildModels } = await import('./build.ts');
      console.log(await buildModels(options.project, selector, 'test', env));
    });

  program.command('seed')
    .description("dbt seed: reload the CSV files of transform/seeds into their tables (all, or dbt's selector syntax)")
    .argument('[selector]', "dbt's selector, e.g. countries")
    .option('--project <dir>', 'project folder', '.')
    .action(async (selector: string | undefined, options: { project: string }) => {
      const { buildModels } = await import('./build.ts');
      console.log(await buildModels(options.project, selector, 'seed', env));
    });

  program.command('models')
    .description('List the dbt models with their layer and latest status')
    .option('--project <dir>', 'project folder', '.')
    .action(async (options: { project: string }) => {
      const { listModels } = await import('./transform.ts');
      console.log(await listModels(options.project, env));
    });

  program.command('transform')
    .description('The dbt project')
    .command('docs')
    .description('Generate the transformation-docs site (served at /transform-docs/)')
    .option('--project <dir>', 'project folder', '.')
    .action(async (options: { project: string }) => {
      const { generateTransformDocs } = await import('./transform.ts');
      console.log(await generateTransformDocs(options.project, env));
    });

  const auth = program.command('auth').description('Manage users and authentication');
  auth.command('status')
    .option('--project <dir>', 'project folder', '.')
    .action(async (options: { project: string }) => {
      const { describeAuthStatus } = await import('./users.ts');
      console.log(await describeAuthStatus(options.project, env));
    });
  auth.command('add-user')
    .description('Add a user')
    .option('--project <dir>', 'project folder', '.')
    .option('--email <email>')
    .option('--name <name>')
    .option('--role <role>', 'admin, editor or viewer')
    .option('--password <password>')
    .option('--non-interactive', 'never prompt')
    .action(async (options: { project: string; email?: string; name?: string; role?: string; password?: string; nonInteractive?: boolean }) => {
      const { addUser } = await import('./users.ts');
      console.log(await addUser(options, env));
    });

  auth.command('unlock')
    .description('Clear the failed-login counter of an email (ends a lockout)')
    .argument('<email>')
    .option('--project <dir>', 'project folder', '.')
    .action(async (email: string, options: { project: string }) => {
      const { unlockUser } = await import('./users.ts');
      console.log(await unlockUser(options.project, email, env));
    });

  auth.command('recover')
    .description('Create an emergency admin with a temporary password (changed at first login)')
    .option('--project <dir>', 'project folder', '.')
    .action(async (options: { project: string }) => {
      const { recoverAdmin } = await import('./users.ts');
      console.log(await recoverAdmin(options.project, env));
    });
  auth.command('enable')
    .description('Authentication is always on; on a project without users this adds the first admin')
    .option('--project <dir>', 'project folder', '.')
    .option('--email <email>')
    .option('--password <password>')
    .option('--non-interactive', 'never prompt')
    .action(async (options: { project: string; email?: string; password?: string; nonInteractive?: boolean }) => {
      const { enableAuth } = await import('./users.ts');
      console.log(await enableAuth(options, env));
    });

  program.command('alert')
    .description('Alerts of project.yml')
    .command('test')
    .description('Send a test message to an alert of project.yml (webhook or email)')
    .argument('<name>')
    .option('--project <dir>', 'project folder', '.')
    .action(async (name: string, options: { project: string }) => {
      const { testAlert } = await import('./alert.ts');
      console.log(await testAlert(options.project, name, env));
    });

  program.command('oauth')
    .description('OAuth providers')
    .command('setup')
    .description('Configure an OAuth login provider (google or github), or with --for sources grant Quarry access to a provider\'s data (google)')
    .argument('<provider>')
    .option('--project <dir>', 'project folder', '.')
    .option('--for <use>', 'login (sign-in to Quarry) or sources (data the source types read)', 'login')
    .option('--client-id <id>')
    .option('--client-secret <secret>', 'or set QUARRY_GOOGLE_CLIENT_SECRET / QUARRY_GITHUB_CLIENT_SECRET (login), QUARRY_GOOGLE_SOURCES_CLIENT_SECRET (sources)')
    .option('--issuer <url>', 'google login: the OpenID Connect issuer')
    .option('--authorization-url <url>', 'github login, or sources: the authorize endpoint')
    .option('--token-url <url>', 'github login, or sources: the token endpoint')
    .option('--api-url <url>', 'github: the API root with /user/emails')
    .option('--port <port>', 'sources: the loopback port the browser returns to (default: a free one)', parsePort)
    .option('--non-interactive', 'never prompt')
    .action(async (provider: string, options: OAuthSetupOptions & SourceOAuthSetupOptions & { for: string }) => {
      const { setupOAuthProvider } = await import('./oauth-setup.ts');
      const { setupSourceOAuth } = await import('./source-oauth-setup.ts');
      if (options.for === 'sources') {
        console.log(await setupSourceOAuth(provider, options, env, (line) => { console.log(line); }));
        return;
      }
      if (options.for !== 'login') throw new CliError(`--for must be login or sources, not "${options.for}"`);
      console.log(await setupOAuthProvider(provider, options, env));
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    return reportFailure(error);
  }
}

function reportFailure(error: unknown): number {
  if (error instanceof Error && 'exitCode' in error && typeof error.exitCode === 'number' && 'code' in error
    && typeof error.code === 'string' && error.code.startsWith('commander.')) {
    return error.exitCode === 0 ? 0 : 1;
  }
  if (error instanceof ConfigError) {
    for (const problem of error.problems) console.error(problem);
    return 1;
  }
  if (error instanceof QuarryError || error instanceof CliError) {
    console.error(`quarry: ${error.message}`);
    return 1;
  }
  if (error instanceof Error && error.name === 'ExitPromptError') return 130;
  if (error instanceof Error && 'code' in error && error.code === 'EADDRINUSE') {
    console.error(`quarry: ${error.message.replace(/^listen /, '')}: the port is taken; choose another with --port`);
    return 1;
  }
  console.error(`quarry: unexpected error: ${describeError(error)}`);
  return 1;
}
