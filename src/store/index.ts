import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { AlertsRepository } from './alerts-repository.ts';
import { ApiKeysRepository } from './api-keys-repository.ts';
import { AuditRepository } from './audit-repository.ts';
import { CommitSignal } from './commit-signal.ts';
import { CredentialGenerationRepository } from './credential-generation-repository.ts';
import { FileLedgerRepository } from './file-ledger-repository.ts';
import { JobsRepository } from './jobs-repository.ts';
import { LogsRepository } from './logs-repository.ts';
import { LoginFailuresRepository } from './login-failures-repository.ts';
import { migrate } from './migrations.ts';
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

export type { DashboardAccount } from './dashboard-accounts-repository.ts';
export { ROLES, type Role, type UserRecord, type NewUser } from './users-repository.ts';
export { SESSION_STAGES, type SessionStage, type SessionRecord } from './sessions-repository.ts';
export type { ApiKeyRecord } from './api-keys-repository.ts';
export type { OutboxStatus, OutboxEntry } from './alerts-repository.ts';
export type { AuditEvent } from './audit-repository.ts';
export { JOB_STATUSES, type JobStatus, type JobKind, type JobRecord } from './jobs-repository.ts';
export { LOG_LEVELS, type LogLevel, type LogEntry } from './logs-repository.ts';
export type { FileLedgerRepository, LedgerEntry } from './file-ledger-repository.ts';
export { LAYERS, type Layer } from './warehouse-tables-repository.ts';
export type { ColumnProfile, TableProfile, CatalogTable } from './table-profiles-repository.ts';
export { MODEL_RUN_STATUSES, type ModelRunStatus, type ModelRunRecord } from './model-runs-repository.ts';
export { TEST_STATUSES, type TestStatus, type TestResultRecord } from './test-results-repository.ts';
export { sqliteFailure } from './sqlite-failure.ts';
export { SCHEDULE_OUTCOMES, SCHEDULE_TRIGGERS, type ScheduleOutcome, type ScheduleTrigger, type ScheduleRunRecord } from './schedules-repository.ts';

export interface Store {
  readonly users: UsersRepository;
  readonly sessions: SessionsRepository;
  readonly apiKeys: ApiKeysRepository;
  /** Changes whenever a user, session or API key changes in a way that matters to authentication, in any process. */
  readonly credentialGeneration: CredentialGenerationRepository;
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
  /** Runs `work` in one immediate transaction; `work` must not await. */
  transaction<T>(work: () => T): T;
  close(): void;
}

export interface StoreOptions {
  /** Takes the secrets out of the activity log's messages and the jobs' errors as they are written, whoever writes them. */
  readonly redact?: (text: string) => string;
}

/** Opens (creating and migrating as needed) the platform database; the returned store is the only handle on it. */
export function openStore(file: string, options: StoreOptions = {}): Store {
  const redact = options.redact ?? ((text: string) => text);
  mkdirSync(path.dirname(file), { recursive: true });
  ownerOnly(file);
  const database = new DatabaseSync(file, { timeout: 5000 });
  database.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;');
  migrate(database);
  const commits = new CommitSignal(file);
  let closed = false;
  return {
    users: new UsersRepository(database),
    sessions: new SessionsRepository(database),
    apiKeys: new ApiKeysRepository(database),
    credentialGeneration: new CredentialGenerationRepository(database, commits),
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
    transaction<T>(work: () => T): T {
      database.exec('BEGIN IMMEDIATE');
      try {
        const result = work();
        database.exec('COMMIT');
        return result;
      } catch (error) {
        // SQLite has already rolled back after some errors (an I/O error, a full disk); a second ROLLBACK would fail and hide the cause.
        if (database.isTransaction) database.exec('ROLLBACK');
        throw error;
      }
    },
    close(): void {
      if (closed) return;
      closed = true;
      database.close();
      commits.close();
    },
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
