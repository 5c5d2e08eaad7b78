import type { DuckDBConnection } from '@duckdb/node-api';

/** The most a value built by repeating or padding may hold, in bytes (lpad and rpad: in characters of up to 4 bytes). */
export const GUARDED_VALUE_BYTES = 64 * 1024 * 1024;

const GUARDED_PAD_CHARACTERS = GUARDED_VALUE_BYTES / 4;

function tooLarge(what: string): string {
  return `error(concat('A value of more than ${String(GUARDED_VALUE_BYTES / (1024 * 1024))} MB is not built here: ', ${what}))`;
}

function guardedCount(bytes: string): string {
  return `CASE WHEN n * ${bytes} > ${String(GUARDED_VALUE_BYTES)} THEN ${tooLarge(`'repeat would make ', n * ${bytes}, ' bytes'`)} ELSE n END`;
}

function guardedPad(name: string): string {
  const count = `CASE WHEN n > ${String(GUARDED_PAD_CHARACTERS)} THEN ${tooLarge(`'${name} would make ', n, ' characters'`)} ELSE n END`;
  return `CREATE TEMP MACRO ${name}(s, n, p) AS system.main.${name}(s, ${count}, p)`;
}

/**
 * Macros that stand in front of DuckDB's functions of the same name on a reader's connection (temp comes first in
 * the search path): DuckDB builds a function's result outside its memory limit, so `repeat('x', 3000000000)` took
 * 6 GB of the service's memory and a minute, with no interrupt heard until it returned. Each refuses a result over
 * GUARDED_VALUE_BYTES before DuckDB builds it; the check (reader-sql.ts) refuses calls through the system catalog,
 * which would skip them. A list is measured by its text.
 */
const GUARDS = [
  `CREATE TEMP MACRO repeat(s VARCHAR, n BIGINT) AS system.main.repeat(s, ${guardedCount('strlen(s)')}),
    (s BLOB, n BIGINT) AS system.main.repeat(s, ${guardedCount('octet_length(s)')}),
    (s, n) AS system.main.repeat(s, ${guardedCount('strlen(CAST(s AS VARCHAR))')})`,
  guardedPad('lpad'),
  guardedPad('rpad'),
];

/** Puts the value-size guards on `connection`; temp macros belong to one connection, so each needs its own. */
export async function guardValueSizes(connection: DuckDBConnection): Promise<void> {
  for (const guard of GUARDS) await connection.run(guard);
}
