import type { DuckDBConnection } from '../warehouse/index.ts';
import { quoteIdentifier } from '../warehouse/index.ts';

const INTEGER_WIDTH = ['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT'];
const NUMERIC = [...INTEGER_WIDTH, 'FLOAT', 'DOUBLE'];

/** The narrowest type both columns fit in: wider integers, then DOUBLE, DATE into TIMESTAMP, and VARCHAR for anything else. */
export function widenType(current: string, incoming: string): string {
  if (current === incoming) return current;
  if (NUMERIC.includes(current) && NUMERIC.includes(incoming)) {
    if (INTEGER_WIDTH.includes(current) && INTEGER_WIDTH.includes(incoming)) {
      return INTEGER_WIDTH[Math.max(INTEGER_WIDTH.indexOf(current), INTEGER_WIDTH.indexOf(incoming))] ?? 'BIGINT';
    }
    return 'DOUBLE';
  }
  const temporal = ['DATE', 'TIMESTAMP'];
  if (temporal.includes(current) && temporal.includes(incoming)) return 'TIMESTAMP';
  return 'VARCHAR';
}

export async function describeColumns(connection: DuckDBConnection, sql: string): Promise<Map<string, string>> {
  const result = await connection.runAndReadAll(`DESCRIBE ${sql}`);
  return new Map(result.getRowObjects().map((row) => [String(row.column_name), String(row.column_type)]));
}

/**
 * Makes `table` able to take every column of `incoming`: new columns are added, conflicting types widened.
 * Never drops a column or narrows a type, so no loaded value is lost. Returns what changed, for the log.
 */
export async function evolveTable(connection: DuckDBConnection, table: string, incoming: Map<string, string>): Promise<string[]> {
  const existing = await describeColumns(connection, `SELECT * FROM ${table}`);
  const changes: string[] = [];
  for (const [column, type] of incoming) {
    const current = existing.get(column);
    if (current === undefined) {
      await connection.run(`ALTER TABLE ${table} ADD COLUMN ${quoteIdentifier(column)} ${type}`);
      changes.push(`added column ${column} (${type})`);
      continue;
    }
    const widened = widenType(current, type);
    if (widened !== current) {
      await connection.run(`ALTER TABLE ${table} ALTER ${quoteIdentifier(column)} TYPE ${widened}`);
      changes.push(`widened column ${column} from ${current} to ${widened}`);
    }
  }
  return changes;
}
