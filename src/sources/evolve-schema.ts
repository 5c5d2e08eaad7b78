import type { DuckDBConnection } from '../warehouse/index.ts';
import { quoteIdentifier } from '../warehouse/index.ts';
import type { Column } from './file-reading.ts';

const INTEGER_WIDTH = ['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT'];
const NUMERIC = [...INTEGER_WIDTH, 'FLOAT', 'DOUBLE'];

function isNumeric(type: string): boolean {
  return NUMERIC.includes(type) || type.startsWith('DECIMAL(');
}

/** The narrowest type both columns fit in: wider integers, then DOUBLE, DATE into TIMESTAMP, and VARCHAR for anything else. */
export function widenType(current: string, incoming: string): string {
  if (current === incoming) return current;
  if (isNumeric(current) && isNumeric(incoming)) {
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

type Widening = { readonly kind: 'widen'; readonly column: string; readonly from: string; readonly to: string };

export type SchemaChange =
  | { readonly kind: 'add'; readonly column: string; readonly type: string }
  | Widening;

/** A column of an input spelt otherwise than the table's column it is loaded into (DuckDB names ignore case). */
export interface Respelling {
  readonly input: string;
  readonly spelling: string;
  readonly kept: string;
  /** The input whose spelling the table keeps; undefined when the table already had the column. */
  readonly keptFrom: string | undefined;
}

export interface SchemaPlan {
  /** The table's columns once the changes are made, in the table's spelling and order. */
  readonly columns: readonly Column[];
  readonly changes: readonly SchemaChange[];
  readonly respellings: readonly Respelling[];
}

/**
 * What a table needs to take every column of every input: columns are matched by name case-insensitively,
 * as DuckDB resolves identifiers, the first spelling kept; new columns are added, conflicting types widened.
 * Never drops a column or narrows a type, so no loaded value is lost.
 */
export function planSchema(existing: readonly Column[], inputs: readonly { name: string; columns: readonly Column[] }[]): SchemaPlan {
  const columns = new Map<string, { name: string; type: string; from: string | undefined }>();
  for (const [name, type] of existing) columns.set(name.toLowerCase(), { name, type, from: undefined });
  const original = new Map([...columns].map(([key, column]) => [key, column.type]));
  const respellings: Respelling[] = [];
  for (const input of inputs) {
    for (const [name, type] of input.columns) {
      const key = name.toLowerCase();
      const current = columns.get(key);
      if (current === undefined) {
        columns.set(key, { name, type, from: input.name });
        continue;
      }
      if (current.name !== name) respellings.push({ input: input.name, spelling: name, kept: current.name, keptFrom: current.from });
      columns.set(key, { ...current, type: widenType(current.type, type) });
    }
  }
  const changes: SchemaChange[] = [];
  for (const [key, column] of columns) {
    const before = original.get(key);
    if (before === undefined) changes.push({ kind: 'add', column: column.name, type: column.type });
    else if (before !== column.type) changes.push({ kind: 'widen', column: column.name, from: before, to: column.type });
  }
  return { columns: [...columns.values()].map((column): Column => [column.name, column.type]), changes, respellings };
}

/** Integer widenings and FLOAT to DOUBLE: the only type changes the lake makes in place (DuckLake's type promotion). */
function promotesInPlace(from: string, to: string): boolean {
  const integers = INTEGER_WIDTH.filter((type) => type !== 'HUGEINT');
  return (integers.includes(from) && integers.includes(to)) || (from === 'FLOAT' && to === 'DOUBLE');
}

/**
 * Runs the plan's changes. A type the lake cannot promote in place (to VARCHAR, integers to DOUBLE, DATE
 * to TIMESTAMP) is changed by rewriting the table with the column cast, keeping the column order. DuckDB
 * refuses to commit DDL that follows DML on the same table, so call it before any row is written.
 */
export async function applySchemaChanges(connection: DuckDBConnection, table: string, changes: readonly SchemaChange[]): Promise<void> {
  const rewritten = changes.filter((change): change is Widening => change.kind === 'widen' && !promotesInPlace(change.from, change.to));
  if (rewritten.length > 0) {
    const casts = rewritten.map((change) => `CAST(${quoteIdentifier(change.column)} AS ${change.to}) AS ${quoteIdentifier(change.column)}`);
    await connection.run(`CREATE OR REPLACE TABLE ${table} AS SELECT * REPLACE (${casts.join(', ')}) FROM ${table}`);
  }
  for (const change of changes.filter((candidate) => !(rewritten as readonly SchemaChange[]).includes(candidate))) {
    await connection.run(change.kind === 'add'
      ? `ALTER TABLE ${table} ADD COLUMN ${quoteIdentifier(change.column)} ${change.type}`
      : `ALTER TABLE ${table} ALTER ${quoteIdentifier(change.column)} TYPE ${change.to}`);
  }
}

/** How a change reads in the source's log. */
export function describeChange(change: SchemaChange): string {
  return change.kind === 'add'
    ? `added column ${change.column} (${change.type})`
    : `widened column ${change.column} from ${change.from} to ${change.to}`;
}

/**
 * Makes `table` able to take every column of `incoming`: new columns are added, conflicting types widened,
 * names matched case-insensitively. Returns what changed, for the log.
 */
export async function evolveTable(connection: DuckDBConnection, table: string, incoming: Map<string, string>): Promise<string[]> {
  const existing = await describeColumns(connection, `SELECT * FROM ${table}`);
  const plan = planSchema([...existing], [{ name: table, columns: [...incoming] }]);
  await applySchemaChanges(connection, table, plan.changes);
  return plan.changes.map(describeChange);
}
