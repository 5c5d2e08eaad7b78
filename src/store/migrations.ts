import type { DatabaseSync } from 'node:sqlite';
import type pg from 'pg';

/**
 * One step of the platform database's schema, for both engines: the same SQL where they read it alike (column
 * types are written as SQLite's and widened for PostgreSQL by `forPostgres`), each engine's own where they differ
 * (triggers, and SQLite's way of changing a CHECK).
 */
type Migration = string | { readonly sqlite: string; readonly postgres: string };

/** The tables of the catalog's profiles, made alike on both engines (their triggers differ). */
const TABLE_PROFILES = `
  CREATE TABLE table_profiles (
    schema_name TEXT NOT NULL,
    table_name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('table', 'view')),
    columns TEXT NOT NULL,
    profiled_generation INTEGER NOT NULL,
    profiled_at TEXT NOT NULL,
    PRIMARY KEY (schema_name, table_name)
  );`;
const TABLE_CHANGES = `
  CREATE TABLE table_changes (
    schema_name TEXT NOT NULL,
    table_name TEXT NOT NULL,
    generation INTEGER NOT NULL,
    PRIMARY KEY (schema_name, table_name)
  );
  INSERT INTO table_changes SELECT schema_name, table_name, 1 FROM warehouse_tables;`;

/** Append-only: a released migration is never edited, a change is a new entry. */
const MIGRATIONS: readonly Migration[] = [
  `
  CREATE TABLE users (
    id INTEGER PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL DEFAULT '',
    role TEXT NOT NULL CHECK (role IN ('admin', 'editor', 'viewer')),
    active INTEGER NOT NULL DEFAULT 1,
    password_hash TEXT,
    password_changed_at TEXT,
    must_change_password INTEGER NOT NULL DEFAULT 0,
    totp_secret_encrypted TEXT,
    totp_enabled INTEGER NOT NULL DEFAULT 0,
    totp_last_counter INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    stage TEXT NOT NULL CHECK (stage IN ('full', 'partial', 'password_change')),
    created_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    ip TEXT NOT NULL DEFAULT '',
    user_agent TEXT NOT NULL DEFAULT ''
  );
  CREATE INDEX sessions_by_user ON sessions(user_id);
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    expires_at TEXT,
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at TEXT
  );
  CREATE INDEX api_keys_by_user ON api_keys(user_id);
  CREATE TABLE login_failures (
    ip TEXT NOT NULL,
    email TEXT NOT NULL,
    failures INTEGER NOT NULL,
    first_failed_at TEXT NOT NULL,
    locked_until TEXT,
    PRIMARY KEY (ip, email)
  );
  CREATE INDEX login_failures_by_email ON login_failures(email);
  CREATE TABLE audit_events (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    event TEXT NOT NULL,
    actor_email TEXT,
    subject TEXT,
    ip TEXT,
    detail TEXT
  );
  CREATE TABLE warehouse_tables (
    schema_name TEXT NOT NULL,
    table_name TEXT NOT NULL,
    layer TEXT NOT NULL CHECK (layer IN ('raw', 'staging', 'marts')),
    source_name TEXT,
    row_count INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (schema_name, table_name)
  );
  `,
  `
  ALTER TABLE users ADD COLUMN oauth_provider TEXT;
  ALTER TABLE users ADD COLUMN oauth_subject TEXT;
  `,
  `
  CREATE TABLE jobs (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('sync', 'run')),
    target TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'success', 'failed', 'interrupted')),
    full_refresh INTEGER NOT NULL DEFAULT 0,
    requested_by TEXT,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    rows INTEGER,
    error TEXT
  );
  CREATE INDEX jobs_by_target ON jobs(kind, target, id);
  CREATE INDEX jobs_active ON jobs(status) WHERE status IN ('queued', 'running');
  CREATE TABLE logs (
    id INTEGER PRIMARY KEY,
    timestamp TEXT NOT NULL,
    level TEXT NOT NULL CHECK (level IN ('INFO', 'WARNING', 'ERROR', 'SUCCESS')),
    source TEXT,
    job_id INTEGER,
    message TEXT NOT NULL
  );
  CREATE INDEX logs_by_source ON logs(source, id);
  CREATE TABLE file_ledger (
    source TEXT NOT NULL,
    path TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ms INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    rows INTEGER NOT NULL,
    loaded_at TEXT NOT NULL,
    PRIMARY KEY (source, path)
  );
  `,
  `
  CREATE TABLE source_state (
    source TEXT NOT NULL,
    resource TEXT NOT NULL,
    value TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (source, resource)
  );
  `,
  `
  CREATE TABLE model_runs (
    id INTEGER PRIMARY KEY,
    job_id INTEGER NOT NULL,
    model TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'success', 'error', 'skipped')),
    started_at TEXT NOT NULL,
    finished_at TEXT,
    duration_seconds REAL,
    error TEXT
  );
  CREATE INDEX model_runs_by_model ON model_runs(model, id);
  CREATE INDEX model_runs_by_job ON model_runs(job_id);
  `,
  `
  CREATE TABLE source_oauth_tokens (
    provider TEXT PRIMARY KEY,
    token_encrypted TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  `,
  `
  -- No foreign key: the account of a deleted user must stay known until it is disabled in Superset.
  CREATE TABLE dashboard_accounts (
    user_id INTEGER PRIMARY KEY,
    username TEXT NOT NULL UNIQUE,
    superset_user_id INTEGER NOT NULL,
    password_encrypted TEXT NOT NULL,
    active INTEGER NOT NULL,
    synced_at TEXT NOT NULL
  );
  `,
  `
  -- The Quarry role the account was last given: a different one means its Superset roles are out of date.
  ALTER TABLE dashboard_accounts ADD COLUMN role TEXT;
  `,
  `
  -- Wrong two-factor codes: per partial session (it ends at the limit) and per user (locked for a while).
  ALTER TABLE sessions ADD COLUMN totp_failures INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE totp_failures (
    user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    failures INTEGER NOT NULL,
    locked_until TEXT
  );
  `,
  `
  -- How each file was read (the dialect DuckDB detected, as JSON) and, for a file DuckDB cannot read, why:
  -- kept with the file's hash, so an unchanged file is never sniffed or retried again.
  ALTER TABLE file_ledger ADD COLUMN reading TEXT;
  ALTER TABLE file_ledger ADD COLUMN error TEXT;
  -- Files a successful sync skipped because DuckDB could not read them.
  ALTER TABLE jobs ADD COLUMN files_failed INTEGER NOT NULL DEFAULT 0;
  `,
  `
  -- Whether a failed job failed on an error that may pass if tried again (network, 5xx, 429): schedules retry those.
  ALTER TABLE jobs ADD COLUMN transient INTEGER NOT NULL DEFAULT 0;
  -- Each schedule's latest cron slot the scheduler has dealt with (run, skipped, or the first time it saw the
  -- schedule): a slot after it that is already past when the service starts was missed while it was down.
  CREATE TABLE schedule_slots (
    schedule TEXT PRIMARY KEY,
    last_slot_at TEXT NOT NULL
  );
  -- Every run of a schedule (by cron, catching up after downtime, or started by hand) and how it ended.
  CREATE TABLE schedule_runs (
    id INTEGER PRIMARY KEY,
    schedule TEXT NOT NULL,
    trigger TEXT NOT NULL CHECK (trigger IN ('cron', 'catch_up', 'manual')),
    started_at TEXT NOT NULL,
    finished_at TEXT,
    outcome TEXT NOT NULL CHECK (outcome IN ('running', 'success', 'failed', 'skipped', 'interrupted')),
    detail TEXT
  );
  CREATE INDEX schedule_runs_by_schedule ON schedule_runs(schedule, id);
  `,
  `
  -- Open incidents (a failing source or model, a stale source, a missed schedule): one row while it lasts, so that it
  -- is announced once and its recovery once, across retries and restarts.
  CREATE TABLE alert_incidents (
    kind TEXT NOT NULL,
    subject TEXT NOT NULL,
    error TEXT NOT NULL,
    opened_at TEXT NOT NULL,
    PRIMARY KEY (kind, subject)
  );
  -- Alert messages to deliver, written with the incident that caused them and kept until sent or given up on.
  -- The message holds facts only: destinations and their credentials are read from the configuration at send time.
  CREATE TABLE alert_outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    alert TEXT NOT NULL,
    event TEXT NOT NULL,
    message TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
    created_at TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    last_error TEXT,
    finished_at TEXT
  );
  CREATE INDEX alert_outbox_pending ON alert_outbox (next_attempt_at) WHERE status = 'pending';
  `,
  {
    sqlite: `
  -- What the catalog shows of each warehouse table beyond its row count: its kind and its columns with their
  -- profiles (nulls, distinct values, min, max, top values), computed after the job that changed the table.
${TABLE_PROFILES}
  -- Counts every change the jobs record of a table, so a profile knows it is stale even when two changes share a
  -- timestamp or one lands while the profile is being computed. The triggers are what no writer can forget (not
  -- INSERT OR IGNORE: an upsert on warehouse_tables would impose its own conflict handling on it).
${TABLE_CHANGES}
  CREATE TRIGGER warehouse_table_inserted AFTER INSERT ON warehouse_tables BEGIN
    INSERT INTO table_changes SELECT NEW.schema_name, NEW.table_name, 0
      WHERE NOT EXISTS (SELECT 1 FROM table_changes WHERE schema_name = NEW.schema_name AND table_name = NEW.table_name);
    UPDATE table_changes SET generation = generation + 1 WHERE schema_name = NEW.schema_name AND table_name = NEW.table_name;
  END;
  CREATE TRIGGER warehouse_table_updated AFTER UPDATE ON warehouse_tables BEGIN
    INSERT INTO table_changes SELECT NEW.schema_name, NEW.table_name, 0
      WHERE NOT EXISTS (SELECT 1 FROM table_changes WHERE schema_name = NEW.schema_name AND table_name = NEW.table_name);
    UPDATE table_changes SET generation = generation + 1 WHERE schema_name = NEW.schema_name AND table_name = NEW.table_name;
  END;
  `,
    postgres: `
${TABLE_PROFILES}
${TABLE_CHANGES}
  CREATE FUNCTION count_table_change() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO table_changes VALUES (NEW.schema_name, NEW.table_name, 1)
      ON CONFLICT (schema_name, table_name) DO UPDATE SET generation = table_changes.generation + 1;
    RETURN NULL;
  END $$;
  CREATE TRIGGER warehouse_table_changed AFTER INSERT OR UPDATE ON warehouse_tables
    FOR EACH ROW EXECUTE FUNCTION count_table_change();
  `,
  },
  {
    sqlite: `
  -- One counter that every change to what a session or an API key may do bumps, from any process (the CLI writes
  -- this database while the server runs): the server's cache of resolved credentials holds while it stays the same.
  -- The bookkeeping columns (a session's last_seen_at, a key's last_used_at) and new rows leave it alone.
  CREATE TABLE credential_generation (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    generation INTEGER NOT NULL
  );
  INSERT INTO credential_generation (id, generation) VALUES (1, 0);
  CREATE TRIGGER users_updated_credentials AFTER UPDATE ON users
    BEGIN UPDATE credential_generation SET generation = generation + 1; END;
  CREATE TRIGGER users_deleted_credentials AFTER DELETE ON users
    BEGIN UPDATE credential_generation SET generation = generation + 1; END;
  CREATE TRIGGER sessions_updated_credentials
    AFTER UPDATE OF id, token_hash, user_id, stage, created_at, ip, user_agent, totp_failures ON sessions
    BEGIN UPDATE credential_generation SET generation = generation + 1; END;
  CREATE TRIGGER sessions_deleted_credentials AFTER DELETE ON sessions
    BEGIN UPDATE credential_generation SET generation = generation + 1; END;
  CREATE TRIGGER api_keys_updated_credentials
    AFTER UPDATE OF id, user_id, name, key_hash, prefix, expires_at, created_at, revoked_at ON api_keys
    BEGIN UPDATE credential_generation SET generation = generation + 1; END;
  CREATE TRIGGER api_keys_deleted_credentials AFTER DELETE ON api_keys
    BEGIN UPDATE credential_generation SET generation = generation + 1; END;
  `,
    postgres: `
  CREATE TABLE credential_generation (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    generation INTEGER NOT NULL
  );
  INSERT INTO credential_generation (id, generation) VALUES (1, 0);
  CREATE FUNCTION count_credential_change() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE credential_generation SET generation = generation + 1;
    RETURN NULL;
  END $$;
  CREATE TRIGGER users_changed_credentials AFTER UPDATE OR DELETE ON users
    FOR EACH ROW EXECUTE FUNCTION count_credential_change();
  CREATE TRIGGER sessions_updated_credentials
    AFTER UPDATE OF id, token_hash, user_id, stage, created_at, ip, user_agent, totp_failures ON sessions
    FOR EACH ROW EXECUTE FUNCTION count_credential_change();
  CREATE TRIGGER sessions_deleted_credentials AFTER DELETE ON sessions
    FOR EACH ROW EXECUTE FUNCTION count_credential_change();
  CREATE TRIGGER api_keys_updated_credentials
    AFTER UPDATE OF id, user_id, name, key_hash, prefix, expires_at, created_at, revoked_at ON api_keys
    FOR EACH ROW EXECUTE FUNCTION count_credential_change();
  CREATE TRIGGER api_keys_deleted_credentials AFTER DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION count_credential_change();
  `,
  },
  `
  -- Each data test's outcome per model run (dbt build), with up to 20 of the rows that failed it (JSON).
  CREATE TABLE test_results (
    id INTEGER PRIMARY KEY,
    job_id INTEGER NOT NULL,
    test TEXT NOT NULL,
    name TEXT NOT NULL,
    model TEXT,
    column_name TEXT,
    type TEXT NOT NULL,
    severity TEXT NOT NULL CHECK (severity IN ('error', 'warn')),
    status TEXT NOT NULL CHECK (status IN ('pass', 'fail', 'warn', 'error', 'skipped')),
    failures INTEGER,
    message TEXT,
    compiled_sql TEXT,
    failing_rows TEXT NOT NULL DEFAULT '[]',
    finished_at TEXT NOT NULL
  );
  CREATE INDEX test_results_by_test ON test_results(test, id);
  CREATE INDEX test_results_by_job ON test_results(job_id);
  -- A raw table's merge key (JSON array), so its staging model gets a unique test.
  ALTER TABLE warehouse_tables ADD COLUMN primary_key TEXT;
  `,
  {
    sqlite: `
  -- Jobs of the warehouse's own (a restore of a source's raw tables, the lake's maintenance), and the lake
  -- snapshots a model run spans (dbt commits its own snapshots, so they cannot carry the job's id): the
  -- latest snapshot before and after it. SQLite cannot change a CHECK, so the table is made again.
  CREATE TABLE jobs_widened (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('sync', 'run', 'restore', 'maintain')),
    target TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'success', 'failed', 'interrupted')),
    full_refresh INTEGER NOT NULL DEFAULT 0,
    requested_by TEXT,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    rows INTEGER,
    error TEXT,
    files_failed INTEGER NOT NULL DEFAULT 0,
    transient INTEGER NOT NULL DEFAULT 0,
    snapshot_before INTEGER,
    snapshot_after INTEGER
  );
  INSERT INTO jobs_widened (id, kind, target, status, full_refresh, requested_by, created_at, started_at, finished_at, rows, error, files_failed, transient)
    SELECT id, kind, target, status, full_refresh, requested_by, created_at, started_at, finished_at, rows, error, files_failed, transient FROM jobs;
  DROP TABLE jobs;
  ALTER TABLE jobs_widened RENAME TO jobs;
  CREATE INDEX jobs_by_target ON jobs(kind, target, id);
  CREATE INDEX jobs_active ON jobs(status) WHERE status IN ('queued', 'running');
  -- Sources whose next sync must rebuild: a restore put their raw tables back, so the file ledger and
  -- cursors (cleared with it) no longer describe what the tables hold.
  CREATE TABLE refresh_marks (
    source TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    marked_at TEXT NOT NULL
  );
  `,
    postgres: `
  ALTER TABLE jobs DROP CONSTRAINT jobs_kind_check;
  ALTER TABLE jobs ADD CONSTRAINT jobs_kind_check CHECK (kind IN ('sync', 'run', 'restore', 'maintain'));
  ALTER TABLE jobs ADD COLUMN snapshot_before INTEGER;
  ALTER TABLE jobs ADD COLUMN snapshot_after INTEGER;
  CREATE TABLE refresh_marks (
    source TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    marked_at TEXT NOT NULL
  );
  `,
  },
  `
  -- The process that runs a job (its id and start time), so a job whose process ended without finishing it (Ctrl-C,
  -- a closed terminal, kill -9) is seen for what it is by the next command, not left running for ever.
  ALTER TABLE jobs ADD COLUMN owner_pid INTEGER;
  ALTER TABLE jobs ADD COLUMN owner_started TEXT;
  `,
  `
  -- At most one queued or running job per target, whichever process asks: the database refuses the second. Any
  -- duplicate a store of before let through (two processes racing) is recorded as interrupted first.
  UPDATE jobs SET status = 'interrupted', finished_at = COALESCE(started_at, created_at),
    error = 'Interrupted: another job of the same target was active'
    WHERE status IN ('queued', 'running')
      AND id NOT IN (SELECT MAX(id) FROM jobs WHERE status IN ('queued', 'running') GROUP BY kind, target);
  CREATE UNIQUE INDEX jobs_one_active ON jobs (kind, target) WHERE status IN ('queued', 'running');
  `,
  `
  -- What a job was asked to do (JSON), so that any process of a deployment can run it from its record; the host of
  -- the process that owns it (its pid means nothing on another host); the name of the process that ran it.
  ALTER TABLE jobs ADD COLUMN parameters TEXT;
  ALTER TABLE jobs ADD COLUMN owner_host TEXT;
  ALTER TABLE jobs ADD COLUMN worker TEXT;
  `,
];

/** The schema version this code writes: a database at a newer one is refused. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the embedded database's schema up to date inside one transaction. */
export function migrateSqlite(database: DatabaseSync): void {
  const row = database.prepare('PRAGMA user_version').get() as { user_version: number };
  const current = row.user_version;
  refuseNewer(current);
  if (current === SCHEMA_VERSION) return;
  database.exec('BEGIN IMMEDIATE');
  try {
    for (const [index, migration] of MIGRATIONS.entries()) {
      if (index >= current) database.exec(typeof migration === 'string' ? migration : migration.sqlite);
    }
    database.exec(`PRAGMA user_version = ${String(SCHEMA_VERSION)}`);
    database.exec('COMMIT');
  } catch (error) {
    database.exec('ROLLBACK');
    throw error;
  }
}

/**
 * Brings a PostgreSQL store's schema (the connection's current schema) up to date inside one transaction. Every
 * process of a deployment may start at once: an advisory lock keyed on the schema lets one migrate while the
 * others wait, then find nothing left to do.
 */
export async function migratePostgres(client: pg.ClientBase): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('quarry_platform_migrations:' || current_schema()))");
    await client.query('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_version');
    const current = rows[0]?.version ?? 0;
    refuseNewer(current);
    for (const [index, migration] of MIGRATIONS.entries()) {
      if (index >= current) await client.query(forPostgres(typeof migration === 'string' ? migration : migration.postgres));
    }
    await client.query('DELETE FROM schema_version');
    await client.query('INSERT INTO schema_version (version) VALUES ($1)', [SCHEMA_VERSION]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

function refuseNewer(version: number): void {
  if (version > SCHEMA_VERSION) {
    throw new Error(`The platform database is at schema version ${String(version)}, newer than this Quarry (${String(SCHEMA_VERSION)}); upgrade Quarry`);
  }
}

/**
 * SQLite's column types as PostgreSQL's: its INTEGER holds 64 bits (file sizes, times in milliseconds, row counts),
 * its REAL is a double, and `INTEGER PRIMARY KEY` numbers new rows by itself.
 */
function forPostgres(sql: string): string {
  return sql
    .replace(/\bid INTEGER PRIMARY KEY( AUTOINCREMENT)?/g, 'id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY')
    .replace(/\bINTEGER\b/g, 'BIGINT')
    .replace(/\bREAL\b/g, 'DOUBLE PRECISION');
}
