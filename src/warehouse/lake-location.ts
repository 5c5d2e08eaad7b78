import { existsSync } from 'node:fs';
import path from 'node:path';
import { isObjectUrl, type ProjectConfig, type ProjectPaths } from '../config/index.ts';
import { bucketUrlOf, objectStorageAccess, type ObjectStorageAccess } from '../object-storage/index.ts';
import { objectStorageSecretStatement } from './bucket-secret.ts';
import { quoteIdentifier, quoteLiteral } from './sql.ts';

const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '..', '..');

/**
 * Where bin/setup links the DuckDB extensions the lake needs (from their PyPI wheels): Node and the
 * Python environments LOAD them from here by path, so nothing is downloaded at run time.
 */
export const DUCKDB_EXTENSIONS_DIR = path.join(REPOSITORY_ROOT, '.tools', 'duckdb-extensions');

/** Every extension a lake connection may load: the format itself and each kind of catalog's database. */
export const LAKE_EXTENSIONS = ['ducklake', 'sqlite_scanner', 'postgres_scanner'] as const;

/**
 * The name the lake is attached under, and the default database of every connection to it: the name the
 * single-file warehouse had, so dbt's `database`, the models API and views naming their tables keep it.
 */
export const LAKE_ALIAS = 'warehouse';

/**
 * The lake's own catalog tables (ducklake_table, ducklake_snapshot…) as an attached lake's connection names
 * them: the metadata database DuckLake attaches beside it, in the SQLite file's `main` or the PostgreSQL schema.
 */
export function lakeMetadataSchema(location: LakeLocation): string {
  const { catalog } = location;
  return `${quoteIdentifier(`__ducklake_metadata_${LAKE_ALIAS}`)}.${quoteIdentifier(catalog.kind === 'sqlite' ? 'main' : catalog.metadataSchema)}`;
}

/** The embedded catalog: an SQLite file in the project's warehouse/ folder. */
export interface SqliteCatalog {
  readonly kind: 'sqlite';
  readonly file: string;
}

/** A catalog in PostgreSQL, shared by Quarry services on several hosts. */
export interface PostgresCatalog {
  readonly kind: 'postgres';
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly database: string;
  /** The schema of the lake's catalog tables. */
  readonly metadataSchema: string;
  /** From the environment; never logged, never in a connection string DuckDB could quote in an error. */
  readonly password: string | undefined;
  /** The read-only role readers log in as (project.yml's `warehouse.reader`); left out, they use `user`. */
  readonly reader?: CatalogLogin;
  /** Who the sessions say they are in pg_stat_activity; left out, libpq's default. */
  readonly applicationName?: ReaderApplicationName;
}

/** A PostgreSQL role and its password (from the environment, under the same rules as the catalog's). */
export interface CatalogLogin {
  readonly user: string;
  readonly password: string | undefined;
}

/** What readers' catalog sessions are named in pg_stat_activity (as `quarry-writer` names the writers' lock): Quarry's own readers, Superset. */
export type ReaderApplicationName = 'quarry-reader' | 'quarry-dashboard';

/**
 * Where a project's lake lives: its catalog (the SQL database of tables, files and snapshots) and the
 * folder of its Parquet files. The one place that says so.
 */
export interface LakeLocation {
  readonly catalog: SqliteCatalog | PostgresCatalog;
  /** A folder, or a bucket's prefix (`s3://bucket/prefix/`); ends with a separator, as DuckLake and allowed_directories compare it. */
  readonly dataPath: string;
  /** How to reach the bucket, when the data is in one. */
  readonly objectStore?: ObjectStorageAccess;
}

/**
 * The project's lake: warehouse/catalog.sqlite and warehouse/data/ (the embedded default), or the catalog and
 * the shared data folder or bucket project.yml's `warehouse` names, with the passwords and keys from `env`.
 */
export function lakeLocation(
  paths: ProjectPaths, config?: Pick<ProjectConfig, 'warehouse' | 'object_store'>, env: Readonly<Record<string, string>> = {},
): LakeLocation {
  const warehouse = config?.warehouse;
  const dataPath = warehouse?.data_path;
  const data = dataPath === undefined ? { dataPath: withTrailingSeparator(paths.lakeDataDir) }
    : isObjectUrl(dataPath) ? { dataPath: dataPath.endsWith('/') ? dataPath : `${dataPath}/`, objectStore: objectStorageAccess(config?.object_store ?? { use_ssl: true }, env) }
      : { dataPath: withTrailingSeparator(path.resolve(dataPath)) };
  if (warehouse === undefined || warehouse.catalog.kind === 'sqlite' || dataPath === undefined) {
    return { catalog: { kind: 'sqlite', file: paths.lakeCatalogFile }, ...data };
  }
  const { reader } = warehouse;
  return {
    catalog: {
      ...warehouse.catalog, metadataSchema: warehouse.metadata_schema, password: env[warehouse.password_env],
      ...(reader === undefined ? {} : { reader: { user: reader.user, password: env[reader.password_env] } }),
    },
    ...data,
  };
}

/** Whether the lake's data files are in a bucket rather than a folder on this machine. */
export function dataInBucket(location: LakeLocation): boolean {
  return location.objectStore !== undefined;
}

/** The local folders a process reading the lake needs to see: the data folder, unless the data is in a bucket. */
export function lakeFolders(location: LakeLocation): string[] {
  return dataInBucket(location) ? [] : [location.dataPath];
}

/**
 * The lake as its readers reach it: a PostgreSQL catalog logs in as the reader role when one is configured
 * (else as the catalog's user), its sessions named `applicationName`. The writer, dbt and maintenance use the
 * location itself.
 */
export function readerLocation(location: LakeLocation, applicationName: ReaderApplicationName = 'quarry-reader'): LakeLocation {
  const { catalog } = location;
  return catalog.kind === 'sqlite' ? location : { ...location, catalog: readerCatalog(catalog, applicationName) };
}

/** A PostgreSQL catalog as its readers log in to it (see readerLocation). */
export function readerCatalog(catalog: PostgresCatalog, applicationName: ReaderApplicationName = 'quarry-reader'): PostgresCatalog {
  const { reader, ...shared } = catalog;
  return { ...shared, ...(reader ?? {}), applicationName };
}

function withTrailingSeparator(folder: string): string {
  return folder.endsWith(path.sep) ? folder : `${folder}${path.sep}`;
}

/** The path of one extension file as bin/setup links it. */
export function extensionFile(name: string): string {
  return path.join(DUCKDB_EXTENSIONS_DIR, `${name}.duckdb_extension`);
}

/** The extensions a connection to this lake loads. */
export function lakeExtensionsOf(location: LakeLocation): readonly string[] {
  return ['ducklake', location.catalog.kind === 'sqlite' ? 'sqlite_scanner' : 'postgres_scanner', ...dataInBucket(location) ? ['httpfs'] : []];
}

/**
 * The catalog as DuckLake's ATTACH names it: `sqlite:<file>` or `postgres:<libpq keywords>` without the
 * password (lakeSecretStatements supply it; DuckDB quotes this string in its errors).
 */
export function catalogPath(catalog: SqliteCatalog | PostgresCatalog): string {
  if (catalog.kind === 'sqlite') return `sqlite:${catalog.file}`;
  const applicationName = catalog.applicationName === undefined ? '' : ` application_name=${catalog.applicationName}`;
  return `postgres:dbname=${catalog.database} host=${catalog.host} port=${String(catalog.port)} user=${catalog.user}${applicationName}`;
}

/**
 * The secrets a connection to the lake holds: the unnamed PostgreSQL secret postgres_scanner adds to every
 * connection string it opens, carrying the catalog's password (none when the catalog needs none: trust, .pgpass),
 * and the bucket's, scoped to it, when the data is in one.
 */
export function lakeSecretStatements(location: LakeLocation): string[] {
  const { catalog, objectStore } = location;
  return [
    ...catalog.kind === 'postgres' && catalog.password !== undefined ? [`CREATE SECRET (TYPE postgres, PASSWORD ${quoteLiteral(catalog.password)})`] : [],
    ...objectStore === undefined ? [] : [bucketSecretStatement(location.dataPath, objectStore)],
  ];
}

/** The name of the secret through which the lake's processes reach its bucket. */
export const LAKE_BUCKET_SECRET = 'quarry_lake_bucket';

/** The secret through which the lake's processes reach its bucket, and no other. */
function bucketSecretStatement(dataPath: string, access: ObjectStorageAccess): string {
  return objectStorageSecretStatement(LAKE_BUCKET_SECRET, bucketUrlOf(dataPath), access);
}

/** `ATTACH 'ducklake:…' AS warehouse (DATA_PATH …[, METADATA_SCHEMA …])`, read-only for readers. */
export function attachStatement(location: LakeLocation, access: 'read' | 'write'): string {
  const { catalog } = location;
  const options = [
    `DATA_PATH ${quoteLiteral(location.dataPath)}`,
    ...(catalog.kind === 'postgres' ? [`METADATA_SCHEMA ${quoteLiteral(catalog.metadataSchema)}`] : []),
    ...(access === 'read' ? ['READ_ONLY'] : []),
  ];
  return `ATTACH ${quoteLiteral(`ducklake:${catalogPath(catalog)}`)} AS ${LAKE_ALIAS} (${options.join(', ')})`;
}

/** Where the lake is, for messages and logs (never the password). */
export function describeLake(location: LakeLocation): string {
  const { catalog } = location;
  if (catalog.kind === 'sqlite') return dataInBucket(location) ? `${catalog.file}, data in ${location.dataPath}` : catalog.file;
  return `postgres://${catalog.user}@${catalog.host}:${String(catalog.port)}/${catalog.database} (schema ${catalog.metadataSchema}), data in ${location.dataPath}`;
}

/** Whether the lake has yet to be made: the embedded catalog's file is missing (a PostgreSQL catalog is made at start). */
export function catalogMissing(location: LakeLocation): boolean {
  return location.catalog.kind === 'sqlite' && !existsSync(location.catalog.file);
}

/**
 * What a Python child (dbt, the dashboard tool) is told of the lake: QUARRY_LAKE_ATTACH is what follows
 * `ducklake:` in its ATTACH; the password, if any, travels as libpq's PGPASSWORD, never in that string; a bucket's
 * secret as QUARRY_LAKE_BUCKET_SECRET, the statement that creates it, which reader_sandbox.py runs.
 */
export function lakeChildEnv(location: LakeLocation): Record<string, string> {
  const { catalog, objectStore } = location;
  return {
    QUARRY_LAKE_ATTACH: catalogPath(catalog),
    QUARRY_LAKE_DATA: location.dataPath,
    ...(catalog.kind === 'sqlite' ? { QUARRY_LAKE_CATALOG: catalog.file } : { QUARRY_LAKE_METADATA_SCHEMA: catalog.metadataSchema }),
    ...(catalog.kind === 'postgres' && catalog.password !== undefined ? { PGPASSWORD: catalog.password } : {}),
    ...(objectStore === undefined ? {} : { QUARRY_LAKE_BUCKET_SECRET: bucketSecretStatement(location.dataPath, objectStore) }),
  };
}
