import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { AlertsRepository } from './alerts-repository.ts';
import { ApiKeysRepository } from './api-keys-repository.ts';
import { AuditRepository } from './audit-repository.ts';
import { CommitSignal } from './commit-signal.ts';
import { CommitSignalledCredentialGeneration, ReadCredentialGeneration } from './credential-generation-repository.ts';
import { FileLedgerRepository } from './file-ledger-repository.ts';
import { JobsRepository } from './jobs-repository.ts';
import { LogsRepository } from './logs-repository.ts';
import { LoginFailuresRepository } from './login-failures-repository.ts';
import { migratePostgres, migrateSqlite } from './migrations.ts';
import type { PlatformDatabase } from './platform-database.ts';
import { PostgresDatabase } from './postgres-database.ts';
import { SqliteDatabase } from './sqlite-database.ts';
import { ModelRunsRepository } from './model-runs-repository.ts';
import { TestResultsRepository } from './test-results-repository.ts';
import { SchedulesRepository } from './schedules-repository.ts';
import { SessionsRepository } from './sessions-repository.ts';
import { SourceOAuthTokensRepository } from './source-oauth-tokens-repository.ts';
import { DashboardAccountsRepository } from './dashboard-accounts-repository.ts';
import { SourceStateRepository } from './source-state-repository.ts';
import { TotpFailuresRepository } from './totp-failures-repository.ts';
import { UsersRepository } from './users-repository.ts';
import { WarehouseTablesRepository } from './warehouse-tables-repository.ts';
import { RefreshMarksRepository } from './refresh-marks-repository.ts';
import { TableProfilesRepository } from './table-profiles-repository.ts';


export interface Store {
  readonly users: UsersRepository;
  readonly sessions: SessionsRepository;
  readonly apiKeys: ApiKeysRepository;
  /**
   * Changes whenever a user, session or API key changes in a way that matters to authentication, in any process.
   * Every authenticated request asks it, so it is cheap: a few bytes of a file, or one row.
   */
  readonly credentialGeneration: { current(): Promise<number> };
  readonly loginFailures: LoginFailuresRepository;
  readonly totpFailures: TotpFailuresRepository;
  readonly audit: AuditRepository;
  readonly jobs: JobsRepository;
  readonly logs: LogsRepository;
  readonly fileLedger: FileLedgerRepository;
  readonly warehouseTables: WarehouseTablesRepository;
  readonly tableProfiles: TableProfilesRepository;
  readonly modelRuns: ModelRunsRepository;
  /** Each data test's outcome per model run. */
  readonly testResults: TestResultsRepository;
  readonly sourceState: SourceStateRepository;
  readonly refreshMarks: RefreshMarksRepository;
  readonly sourceOAuthTokens: SourceOAuthTokensRepository;
  readonly dashboardAccounts: DashboardAccountsRepository;
  readonly schedules: SchedulesRepository;
  /** Open incidents and the outbox of alert messages. */
  readonly alerts: AlertsRepository;
  /** Which engine holds the platform's state: the embedded file, or a PostgreSQL database a deployment shares. */
  readonly engine: PlatformDatabase['engine'];
  /** A PostgreSQL store's place, which the job queue and the event relay of the deployment share; undefined when embedded. */
  readonly shared: SharedStore | undefined;
  /** Runs `work` in one transaction: the repositories' statements within it, however deep, join it. */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** Takes the secrets out of the activity log's messages and the jobs' errors as they are written, whoever writes them. */
  readonly redact?: (text: string) => string;
}

/** Opens (creating and migrating as needed) the embedded platform database; the returned store is the only handle on it. */
export function openStore(file: string, options: StoreOptions = {}): Store {
  mkdirSync(path.dirname(file), { recursive: true });
  ownerOnly(file);
  const connection = new DatabaseSync(file, { timeout: 5000 });
  connection.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;');
  migrateSqlite(connection);
  const commits = new CommitSignal(file);
  const database = new SqliteDatabase(connection);
  return storeOn(database, new CommitSignalledCredentialGeneration(connection, commits), options, async () => {
    await database.close();
    commits.close();
  });
}

/** A PostgreSQL store as the parts of a deployment that share its database reach it. */
export interface SharedStore extends PostgresStoreAddress {
  /** Runs SQL as written (`$1` parameters) in the store's current transaction, if any. */
  executeSql(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}

/** Where a shared platform store is: a PostgreSQL database and the schema of its tables. */
export interface PostgresStoreAddress {
  readonly connection: pg.ClientConfig;
  readonly schema: string;
}

/**
 * Opens the platform store that the processes of a deployment share in PostgreSQL, creating its schema and
 * migrating it as needed (one process at a time).
 */
export async function openPostgresStore(address: PostgresStoreAddress, options: StoreOptions = {}): Promise<Store> {
  const connection = { ...address.connection, options: `-c search_path=${address.schema}` };
  const setup = new pg.Client(connection);
  await setup.connect();
  try {
    await setup.query(`CREATE SCHEMA IF NOT EXISTS ${address.schema}`);
    await migratePostgres(setup);
  } finally {
    await setup.end();
  }
  const database = new PostgresDatabase(connection);
  const shared = { connection: address.connection, schema: address.schema, executeSql: (text: string, values: unknown[]) => database.executeSql(text, values) };
  return storeOn(database, new ReadCredentialGeneration(database), options, () => database.close(), shared);
}

function storeOn(
  database: PlatformDatabase, credentialGeneration: Store['credentialGeneration'], options: StoreOptions, close: () => Promise<void>,
  shared?: SharedStore,
): Store {
  const redact = options.redact ?? ((text: string) => text);
  let closed: Promise<void> | undefined;
  return {
    users: new UsersRepository(database),
    sessions: new SessionsRepository(database),
    apiKeys: new ApiKeysRepository(database),
    credentialGeneration,
    loginFailures: new LoginFailuresRepository(database),
    totpFailures: new TotpFailuresRepository(database),
    audit: new AuditRepository(database),
    jobs: new JobsRepository(database, redact),
    logs: new LogsRepository(database, redact),
    fileLedger: new FileLedgerRepository(database),
    warehouseTables: new WarehouseTablesRepository(database),
    tableProfiles: new TableProfilesRepository(database),
    modelRuns: new ModelRunsRepository(database),
    testResults: new TestResultsRepository(database),
    sourceState: new SourceStateRepository(database),
    refreshMarks: new RefreshMarksRepository(database),
    sourceOAuthTokens: new SourceOAuthTokensRepository(database),
    dashboardAccounts: new DashboardAccountsRepository(database),
    schedules: new SchedulesRepository(database),
    alerts: new AlertsRepository(database),
    engine: database.engine,
    shared,
    transaction: (work) => database.transaction(work),
    close: () => (closed ??= close()),
  };
}

/**
 * The platform database holds password hashes, session and key hashes and encrypted secrets: only its owner may
 * read it. Created 0600 (SQLite gives its -wal and -shm files the database's mode), and tightened if it was not.
 */
function ownerOnly(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  for (const companion of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(companion)) chmodSync(companion, 0o600);
  }
}
