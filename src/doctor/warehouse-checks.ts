import { existsSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describeError, firstLineOf } from '../errors.ts';
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
    if (missing.length > 0) return problem(check, `${missing.join(', ')} cannot be loaded`, `run ${SETUP} (it reinstalls @duckdb/node-api)`);
    return ok(check, `${REQUIRED_EXTENSIONS.join(', ')} load`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/**
 * The warehouse file opens and answers a query; before the first sync there is none yet, which is fine. While
 * this project's Quarry runs it holds the file, so the check leaves it alone.
 */
export async function checkWarehouse(file: string, quarryRunning: boolean): Promise<Finding> {
  const check = 'Warehouse';
  if (!existsSync(file)) return ok(check, 'not created yet: the first sync creates it');
  if (quarryRunning) return ok(check, 'in use by this project\'s running Quarry');
  try {
    const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
    const connection = await instance.connect();
    try {
      const tables = await connection.runAndReadAll("SELECT count(*) AS tables FROM information_schema.tables WHERE table_schema NOT IN ('information_schema', 'pg_catalog')");
      return ok(check, `${String(tables.getRowObjects()[0]?.tables ?? 0)} table(s) in ${file}`);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  } catch (error) {
    const reason = firstLineOf(error);
    if (/lock/i.test(reason)) return problem(check, `another process holds ${file}`, 'stop the other Quarry or DuckDB client using it (`quarry status` shows a running Quarry)');
    return problem(check, `${file} cannot be read: ${describeError(error)}`, 'restore it from a backup, or move it aside and run `quarry sync --all` to load the sources again');
  }
}
