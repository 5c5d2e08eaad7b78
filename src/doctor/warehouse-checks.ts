import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describeError } from '../errors.ts';
import {
  catalogMissing, checkCatalogReachable, describeLake, extensionFile, LAKE_ALIAS, LAKE_EXTENSIONS, quoteLiteral, withSandboxedReader, type LakeLocation,
} from '../warehouse/index.ts';
import { ok, problem, type Finding } from './finding.ts';

const SETUP = path.join(path.resolve(import.meta.dirname, '..', '..'), 'bin', 'setup');

/** The DuckDB extensions syncs read files with; they ship inside @duckdb/node-api, nothing is downloaded. */
export const REQUIRED_EXTENSIONS = ['json', 'parquet'] as const;

/** The extensions the warehouse needs load in this DuckDB, with no download. */
export async function checkDuckDbExtensions(): Promise<Finding> {
  const check = 'DuckDB extensions';
  const instance = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false' });
  const connection = await instance.connect();
  try {
    const missing: string[] = [];
    for (const extension of REQUIRED_EXTENSIONS) {
      try {
        await connection.run(`LOAD ${extension}`);
      } catch {
        missing.push(extension);
      }
    }
    // The lake's, from the PyPI wheels bin/setup links into .tools/duckdb-extensions/.
    for (const extension of LAKE_EXTENSIONS) {
      try {
        await connection.run(`LOAD ${quoteLiteral(extensionFile(extension))}`);
      } catch {
        missing.push(extension);
      }
    }
    if (missing.length > 0) return problem(check, `${missing.join(', ')} cannot be loaded`, `run ${SETUP} (it reinstalls @duckdb/node-api and links the lake's extensions)`);
    return ok(check, `${[...REQUIRED_EXTENSIONS, ...LAKE_EXTENSIONS].join(', ')} load`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/**
 * The lake's catalog opens through a sandboxed reader and answers a query; before the first start there is
 * none yet, which is fine. A reader never waits for a running Quarry, so it is checked while one runs too.
 */
export async function checkWarehouse(lake: LakeLocation): Promise<Finding> {
  const check = 'Warehouse';
  if (catalogMissing(lake)) return ok(check, 'not created yet: the first sync creates it');
  let lakeThere: boolean;
  try {
    // Its own words for a PostgreSQL catalog that refuses the login, names another data path, or none over files.
    lakeThere = await checkCatalogReachable(lake);
  } catch (error) {
    return problem(check, describeError(error), 'docs/operations.md, "The lake\'s catalog in PostgreSQL"');
  }
  if (lake.catalog.kind === 'postgres' && !lakeThere) {
    return ok(check, `not created yet in the schema ${lake.catalog.metadataSchema}: the first start creates it (a project's embedded lake moves there with quarry warehouse move-catalog)`);
  }
  try {
    const tables = await withSandboxedReader(lake, async (connection) =>
      (await connection.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE database_name = '${LAKE_ALIAS}'`)).getRowObjects()[0]?.n ?? 0);
    return ok(check, `${String(tables)} table(s) in the lake ${describeLake(lake)}`);
  } catch (error) {
    return problem(check, `${describeLake(lake)} cannot be read: ${describeError(error)}`, `run ${SETUP} if the lake's DuckDB extensions are missing; else restore the warehouse folder from a backup`);
  }
}
