import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { BUCKET_URL } from './bucket-url.ts';
import { SchedulesSchema } from './schedules-config.ts';
import { Alerts } from './alerts-config.ts';

const HostName = z.string().min(1).regex(/^[A-Za-z0-9.:[\]-]+$/, 'expected a host name or IP address');
const Port = z.number().int().min(1).max(65535);

const Web = z.strictObject({
  host: HostName.default('127.0.0.1'),
  port: Port.default(8800),
  /** The address users reach Quarry at when it differs from http://host:port (a TLS reverse proxy). */
  public_url: z.url({ protocol: /^https?$/ }).optional(),
});

/** Session lifetimes by deployment mode (spec section 8); explicit values win over the preset. */
const SESSION_PRESETS = {
  local: { session_max_days: 365, idle_timeout_minutes: 1440 },
  cloud: { session_max_days: 30, idle_timeout_minutes: 60 },
} as const;

const Auth = z.strictObject({
  preset: z.enum(['local', 'cloud']).default('local'),
  session_max_days: z.number().positive().optional(),
  idle_timeout_minutes: z.number().positive().optional(),
  password_max_age_days: z.number().int().min(0).default(0),
}).transform((auth) => ({
  preset: auth.preset,
  session_max_days: auth.session_max_days ?? SESSION_PRESETS[auth.preset].session_max_days,
  idle_timeout_minutes: auth.idle_timeout_minutes ?? SESSION_PRESETS[auth.preset].idle_timeout_minutes,
  password_max_age_days: auth.password_max_age_days,
}));

const Limits = z.strictObject({
  max_upload_mb: z.number().positive().default(100),
  login_requests_per_minute: z.number().int().positive().default(10),
  api_requests_per_minute: z.number().int().positive().default(200),
  /** A query of /api/query or `quarry query` is interrupted after this long. */
  query_seconds: z.number().positive().max(3600).default(30),
  /** At most this many rows of a query's result are returned (a request may ask for fewer). */
  query_rows: z.number().int().positive().max(1_000_000).default(10_000),
  /** A spreadsheet (.xlsx) a sync reads is set aside when reading it takes longer than this. */
  spreadsheet_seconds: z.number().positive().max(3600).default(120),
});

const Watcher = z.strictObject({
  enabled: z.boolean().default(true),
  auto_sync: z.boolean().default(true),
  auto_transform: z.boolean().default(false),
  debounce_seconds: z.number().int().min(0).default(5),
  patterns: z.array(z.string().min(1)).default(['*.csv', '*.json', '*.jsonl', '*.parquet', '*.xlsx']),
});

const Dashboard = z.strictObject({
  enabled: z.boolean().default(true),
  port: Port.default(8801),
});

const TransformDocs = z.strictObject({
  // Unused: the docs server listens on a Unix socket in .quarry/run/ (a port was open to every local user); still
  // accepted so that existing project.yml files load.
  port: Port.default(8802),
});

/** A host name, an IP address or a CIDR range such as 10.1.0.0/16. */
const AllowedHost = z.string().min(1).regex(/^[A-Za-z0-9.:[\]-]+(\/\d{1,3})?$/, 'expected a host name, an IP address or a CIDR range such as 10.1.0.0/16')
  .refine((entry) => !entry.includes('/') || cidrIsValid(entry), 'expected a CIDR range such as 10.1.0.0/16 or fd00::/8');

function cidrIsValid(entry: string): boolean {
  const [address = '', prefix = ''] = entry.split('/');
  const version = isIP(address);
  return version !== 0 && Number(prefix) <= (version === 4 ? 32 : 128);
}

/**
 * Where sources and alerts may connect. This machine (loopback), link-local networks and cloud metadata addresses
 * are refused unless listed in allow_private: a local database or a test server, say.
 */
const Network = z.strictObject({
  allow_private: z.array(AllowedHost).default([]),
});

const EnvName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'expected an environment variable name such as QUARRY_GOOGLE_CLIENT_SECRET');
const HttpUrl = z.url({ protocol: /^https?$/ });

/** A Google-type login provider: OpenID Connect, endpoints found by discovery from the issuer. */
const GoogleLogin = z.strictObject({
  client_id: z.string().min(1),
  client_secret_env: EnvName.default('QUARRY_GOOGLE_CLIENT_SECRET'),
  issuer: HttpUrl.default('https://accounts.google.com'),
});

/** A code-host-type login provider: OAuth 2 plus the user-emails API. */
const GithubLogin = z.strictObject({
  client_id: z.string().min(1),
  client_secret_env: EnvName.default('QUARRY_GITHUB_CLIENT_SECRET'),
  authorization_url: HttpUrl.default('https://github.com/login/oauth/authorize'),
  token_url: HttpUrl.default('https://github.com/login/oauth/access_token'),
  api_url: HttpUrl.default('https://api.github.com'),
});

const OAuthLogin = z.strictObject({
  google: GoogleLogin.optional(),
  github: GithubLogin.optional(),
});

const POSTGRES_USER = /^[A-Za-z0-9_.-]+$/;

const SqlName = z.string().regex(/^[a-z_][a-z0-9_]*$/, 'expected a lower-case SQL name such as quarry_lake');

/**
 * `sqlite` (embedded in the project), or `postgres://user@host:port/database`: a PostgreSQL database several
 * hosts share. The password is never written here (it is read from the variable `password_env` names, usually in
 * `.env`); `passwordVariable` is that variable's default, for the message.
 */
function sqliteOrPostgres(example: string, passwordVariable: string) {
  return z.string().transform((text, context) => {
    if (text === 'sqlite') return { kind: 'sqlite' as const };
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      context.addIssue({ code: 'custom', message: `expected "sqlite" or a PostgreSQL address such as ${example}` });
      return z.NEVER;
    }
    const problem = postgresUrlProblem(url, passwordVariable);
    if (problem !== undefined) {
      context.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }
    return {
      kind: 'postgres' as const,
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port === '' ? 5432 : Number(url.port),
      user: decodeURIComponent(url.username),
      database: decodeURIComponent(url.pathname.slice(1)),
    };
  });
}

function postgresUrlProblem(url: URL, passwordVariable: string): string | undefined {
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') return 'expected "sqlite" or a postgres:// address';
  if (url.password !== '') return `must not contain a password: put it in .env (${passwordVariable}, or the variable password_env names)`;
  if (url.username === '') return 'expected a user: postgres://USER@host:port/database';
  if (url.hostname === '') return 'expected a host: postgres://user@HOST:port/database';
  if (!/^\/[A-Za-z0-9_-]+$/.test(url.pathname)) return 'expected one database name: postgres://user@host:port/DATABASE';
  if (url.search !== '' || url.hash !== '') return 'expected no ?options or #fragment: postgres://user@host:port/database';
  if (!POSTGRES_USER.test(decodeURIComponent(url.username))) return 'expected a user name of letters, digits, _ . -';
  return undefined;
}

const Catalog = sqliteOrPostgres('postgres://quarry@db.example.com:5432/quarry', 'QUARRY_WAREHOUSE_PASSWORD');

/**
 * Where the platform's own state is (users, sessions, API keys, jobs, logs, schedules, alerts, test results,
 * profiles): the embedded `.quarry/platform.db`, or a PostgreSQL database every Quarry process of a deployment
 * shares (`quarry store migrate --to` moves it there).
 */
const Platform = z.strictObject({
  store: sqliteOrPostgres('postgres://quarry@db.example.com:5432/quarry', 'QUARRY_PLATFORM_PASSWORD').prefault('sqlite'),
  /** The PostgreSQL schema of the platform's tables (one deployment per schema). */
  schema: SqlName.default('quarry_platform'),
  /** The environment variable (in .env) holding the store user's password; none for trust or .pgpass. */
  password_env: EnvName.default('QUARRY_PLATFORM_PASSWORD'),
  /**
   * Seconds a worker may go without a sign of life before its job is given to another (a killed process, a lost
   * host); the same in every process of a deployment.
   */
  job_lease_seconds: z.number().int().min(10).max(3600).default(30),
  /** Jobs each process runs at once from the deployment's queue (syncs wait mostly on their sources), beside one model run. */
  job_concurrency: z.number().int().min(1).max(64).default(4),
});

/**
 * The PostgreSQL role the lake's readers log in as (the query API, the catalog, health, Superset): USAGE on the
 * catalog's schema and SELECT on its tables are enough (docs/operations.md). Left out, readers use the catalog's user.
 */
const WarehouseReader = z.strictObject({
  user: z.string().regex(POSTGRES_USER, 'expected a PostgreSQL role name of letters, digits, _ . -'),
  /** The environment variable (in .env) holding the reader role's password; none for trust or .pgpass. */
  password_env: EnvName.default('QUARRY_WAREHOUSE_READER_PASSWORD'),
});

/** How S3-compatible object storage is addressed: virtual-host buckets (DuckDB's default, AWS's) or the bucket as the path's first part. */
export const URL_STYLES = ['path', 'vhost'] as const;

/** `host` or `host:port`, as DuckDB's ENDPOINT takes it (no scheme: use_ssl says https or http). */
export const Endpoint = z.string().regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/, 'expected host:port without a scheme, such as s3.eu-central-1.amazonaws.com or 127.0.0.1:8333');

/**
 * The object storage the lake's data (and backups) may live in: an S3-compatible endpoint and the names of the
 * `.env` variables holding its credentials (never the credentials themselves).
 */
const ObjectStore = z.strictObject({
  /** Left out: AWS's own endpoint. */
  endpoint: Endpoint.optional(),
  region: z.string().min(1).optional(),
  url_style: z.enum(URL_STYLES).optional(),
  use_ssl: z.boolean().default(true),
  access_key_id_env: EnvName.optional(),
  secret_access_key_env: EnvName.optional(),
}).superRefine((store, context) => {
  if ((store.access_key_id_env === undefined) !== (store.secret_access_key_env === undefined)) {
    context.addIssue({ code: 'custom', path: [store.access_key_id_env === undefined ? 'access_key_id_env' : 'secret_access_key_env'], message: 'set both access_key_id_env and secret_access_key_env, or neither for a public bucket' });
  }
});

const DataPath = z.string().refine((location) => path.isAbsolute(location) || (location.startsWith('s3://') && BUCKET_URL.test(location)),
  'expected an absolute path (the same on every host) or a bucket such as s3://team-lake/quarry');

/**
 * Where the lake lives. Left out: the embedded catalog (warehouse/catalog.sqlite) and warehouse/data/.
 * With a PostgreSQL catalog, Quarry services on several hosts share one lake: one writes at a time
 * (a PostgreSQL advisory lock), every one reads; data_path is then their shared folder or bucket.
 * The embedded catalog may keep its data in a bucket too (object_store: says how to reach it).
 */
const Warehouse = z.strictObject({
  catalog: Catalog.prefault('sqlite'),
  /** The PostgreSQL schema of the lake's catalog tables (one lake per schema). */
  metadata_schema: SqlName.default('quarry_lake'),
  /** The environment variable (in .env) holding the catalog user's password; none for trust or .pgpass. */
  password_env: EnvName.default('QUARRY_WAREHOUSE_PASSWORD'),
  /** A read-only role for the readers of a PostgreSQL catalog; the writer, dbt and maintenance keep the catalog's user. */
  reader: WarehouseReader.optional(),
  /** The folder of the lake's Parquet files (absolute, the same path on every host), or a bucket: s3://bucket/prefix. */
  data_path: DataPath.optional(),
  /** Days of snapshots the lake keeps for time travel and restores; older ones go at the daily maintenance. */
  snapshot_retention_days: z.number().min(0).default(7),
}).superRefine((warehouse, context) => {
  if (warehouse.catalog.kind === 'postgres' && warehouse.data_path === undefined) {
    context.addIssue({ code: 'custom', path: ['data_path'], message: 'a PostgreSQL catalog needs data_path: the absolute path of the folder every host shares' });
  }
  if (warehouse.catalog.kind === 'sqlite' && warehouse.data_path !== undefined && !isObjectUrl(warehouse.data_path)) {
    context.addIssue({ code: 'custom', path: ['data_path'], message: 'a folder is for a shared PostgreSQL catalog; the embedded catalog keeps its data in warehouse/data/ or in a bucket (s3://bucket/prefix)' });
  }
  if (warehouse.catalog.kind === 'sqlite' && warehouse.reader !== undefined) {
    context.addIssue({ code: 'custom', path: ['reader'], message: 'reader is a role of a PostgreSQL catalog; the embedded catalog has no roles' });
  }
});

export const ProjectConfigSchema = z.strictObject({
  name: z.string().min(1),
  organization: z.string().default(''),
  web: Web.prefault({}),
  auth: Auth.prefault({}),
  limits: Limits.prefault({}),
  /** Proxies whose X-Forwarded-For header is believed; every other client is its socket address. */
  trusted_proxies: z.array(z.string().min(1)).default([]),
  /** Loopback addresses are exempt from rate limits; tests narrow this to reach the limited path. */
  rate_limit_exempt: z.array(z.string().min(1)).default(['127.0.0.1', '::1']),
  watcher: Watcher.prefault({}),
  dashboard: Dashboard.prefault({}),
  transform_docs: TransformDocs.prefault({}),
  /** OAuth login providers (existing users only); `quarry oauth setup <provider>` writes this section. */
  oauth: OAuthLogin.prefault({}),
  network: Network.prefault({}),
  /**
   * The only folders file sources read and uploads write (relative to the project or absolute); never .quarry/,
   * the warehouse or the Python environments.
   */
  data_roots: z.array(z.string().min(1)).default(['data']),
  /** Unattended runs: syncs (and optionally the models downstream) on a cron schedule. */
  schedules: SchedulesSchema,
  /** Where failures, stale sources and missed schedules are reported (`quarry alert test NAME` tries one). */
  alerts: Alerts,
  /** Where the platform's own state is: embedded (default) or a PostgreSQL database a deployment shares. */
  platform: Platform.prefault({}),
  /** Where the lake's catalog and data are (default: embedded in the project's warehouse/ folder) and how long its snapshots are kept. */
  warehouse: Warehouse.prefault({}),
  /** The S3-compatible object storage a lake in a bucket and backups to a bucket reach. */
  object_store: ObjectStore.optional(),
}).superRefine((config, context) => {
  const dataPath = config.warehouse.data_path;
  if (dataPath !== undefined && isObjectUrl(dataPath) && config.object_store === undefined) {
    context.addIssue({ code: 'custom', path: ['object_store'], message: `the lake's data in ${dataPath} needs an object_store: section with the endpoint and the .env variables of its credentials` });
  }
  for (const [index, schedule] of config.schedules.entries()) {
    if (schedule.kind !== 'backup') continue;
    const problem = config.object_store === undefined
      ? `a backup into ${schedule.to} needs an object_store: section with the endpoint and the .env variables of its credentials`
      : backupPlaceProblem(schedule.to, config.warehouse);
    if (problem !== undefined) context.addIssue({ code: 'custom', path: ['schedules', index, 'to'], message: problem });
  }
});

/**
 * Why backups cannot go to `destination` with this warehouse, or undefined: a PostgreSQL catalog is not in the backup,
 * and inside the lake's own prefix the lake's maintenance would delete the backups as files it does not know.
 */
export function backupPlaceProblem(destination: string, warehouse: ProjectConfig['warehouse']): string | undefined {
  if (warehouse.catalog.kind === 'postgres') return 'a shared lake with a PostgreSQL catalog is backed up as docs/operations.md ("The lake\'s catalog in PostgreSQL") says, not by quarry backup';
  const lake = warehouse.data_path;
  if (lake === undefined || !isObjectUrl(lake)) return undefined;
  const [inside, outside] = [`${destination.replace(/\/+$/, '')}/`, `${lake.replace(/\/+$/, '')}/`];
  if (inside.startsWith(outside) || outside.startsWith(inside)) return `${destination} overlaps the lake's data in ${lake}, whose maintenance deletes what the lake does not know: choose another prefix or bucket`;
  return undefined;
}

/** Whether a location is a bucket's (s3://, gs://, az://) rather than a folder on this machine. */
export function isObjectUrl(location: string): boolean {
  return /^(s3|gs|az):\/\//.test(location);
}

export type ProjectConfig = z.infer<typeof ProjectConfigSchema>;
/** What a project.yml may say: every default left out. */
export type ProjectConfigFile = z.input<typeof ProjectConfigSchema>;
export type WarehouseConfig = ProjectConfig['warehouse'];
export type ObjectStoreConfig = NonNullable<ProjectConfig['object_store']>;
