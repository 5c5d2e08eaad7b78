import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * The statements of reader-value-guards.sql, which reader_sandbox.py runs too: macros that refuse a value of more
 * than 64 MB before DuckDB builds it outside its memory limit (the file says which, and why they are written so).
 */
const GUARDS = readFileSync(path.join(import.meta.dirname, 'reader-value-guards.sql'), 'utf8')
  .split(/;\s*$/m)
  .map((statement) => statement.replace(/^--.*$/gm, '').trim())
  .filter((statement) => statement !== '');

/** Puts the value-size guards on `connection`; temp macros belong to one connection, so each needs its own. */
export async function guardValueSizes(connection: DuckDBConnection): Promise<void> {
  for (const guard of GUARDS) await connection.run(guard);
}
