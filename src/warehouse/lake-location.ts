import path from 'node:path';
import type { ProjectPaths } from '../config/index.ts';
import { quoteLiteral } from './sql.ts';

const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '..', '..');

/**
 * Where bin/setup links the DuckDB extensions the lake needs (from their PyPI wheels): Node and the
 * Python environments LOAD them from here by path, so nothing is downloaded at run time.
 */
export const DUCKDB_EXTENSIONS_DIR = path.join(REPOSITORY_ROOT, '.tools', 'duckdb-extensions');

/** The extensions every lake connection loads: the format itself and the embedded catalog's database. */
export const LAKE_EXTENSIONS = ['ducklake', 'sqlite_scanner'] as const;

/**
 * The name the lake is attached under, and the default database of every connection to it: the name the
 * single-file warehouse had, so dbt's `database`, the models API and views naming their tables keep it.
 */
export const LAKE_ALIAS = 'warehouse';

/**
 * Where a project's lake lives: its catalog (the SQL database of tables, files and snapshots) and the
 * folder of its Parquet files. The one place that says so: a PostgreSQL catalog or a shared data folder
 * (warehouse.catalog, warehouse.data_path) is a new kind here, nothing else changes.
 */
export interface LakeLocation {
  readonly catalog: { readonly kind: 'sqlite'; readonly file: string };
  /** Ends with a separator, as DuckLake and allowed_directories compare it. */
  readonly dataPath: string;
}

/** The project's lake: warehouse/catalog.sqlite and warehouse/data/ (the embedded default, nothing to configure). */
export function lakeLocation(paths: ProjectPaths): LakeLocation {
  return {
    catalog: { kind: 'sqlite', file: paths.lakeCatalogFile },
    dataPath: `${paths.lakeDataDir}${path.sep}`,
  };
}

/** The path of one extension file as bin/setup links it. */
export function extensionFile(name: string): string {
  return path.join(DUCKDB_EXTENSIONS_DIR, `${name}.duckdb_extension`);
}

/** `ATTACH 'ducklake:sqlite:…' AS warehouse (DATA_PATH …)`, read-only for readers. */
export function attachStatement(location: LakeLocation, access: 'read' | 'write'): string {
  const options = [`DATA_PATH ${quoteLiteral(location.dataPath)}`, ...(access === 'read' ? ['READ_ONLY'] : [])];
  return `ATTACH ${quoteLiteral(`ducklake:sqlite:${location.catalog.file}`)} AS ${LAKE_ALIAS} (${options.join(', ')})`;
}
