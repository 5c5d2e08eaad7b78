import { StatementType, type DuckDBConnection } from '@duckdb/node-api';
import { InvalidRequestError } from '../errors.ts';
import allowed from './reader-allowed-functions.json' with { type: 'json' };

/** SQL handed to a reader that is not one plain query, or reaches past the warehouse. */
export class QueryNotAllowedError extends InvalidRequestError {
  override readonly code = 'query_not_allowed';
}

interface SerializedSql {
  readonly error?: boolean;
  readonly error_message?: string;
  readonly statements?: readonly unknown[];
}

// EXPLAIN is the one statement json_serialize_sql cannot read; the query it explains is checked instead.
const EXPLAIN_PREFIX = /^\s*explain\s+(?:analyze\s+)?/i;

/**
 * The texts of the queries that passed lately, the most recent last. The verdict depends on the text alone (the
 * parser binds nothing), and a dashboard or a page sends the same queries again and again: the check is ~1.4 ms,
 * a tenth of a 1M-row aggregate.
 */
const passed = new Set<string>();
const REMEMBERED_QUERIES = 256;
const REMEMBERED_SQL_CHARACTERS = 10_000;

/**
 * Refuses `sql` unless it is exactly one query (SELECT, WITH, FROM, VALUES, SHOW, DESCRIBE, SUMMARIZE, or
 * EXPLAIN of one) that calls only allowed functions (reader-allowed-functions.json) and names no file, as DuckDB
 * itself parses it.
 * json_serialize_sql parses without binding or reading anything and serialises queries alone, so ATTACH,
 * DETACH, CALL, COPY, USE, SET, RESET, PRAGMA, INSTALL, LOAD, EXPORT, IMPORT and every write fail it;
 * nothing is prepared (binding sqlite_scan would already open its file) until the tree has passed.
 */
export async function assertReadsOnly(connection: DuckDBConnection, sql: string): Promise<void> {
  if (passed.has(sql)) {
    passed.delete(sql);
    passed.add(sql);
    return;
  }
  await checkReadsOnly(connection, sql);
  if (sql.length > REMEMBERED_SQL_CHARACTERS) return;
  passed.add(sql);
  for (const oldest of passed) {
    if (passed.size <= REMEMBERED_QUERIES) break;
    passed.delete(oldest);
  }
}

async function checkReadsOnly(connection: DuckDBConnection, sql: string): Promise<void> {
  const statements = await connection.extractStatements(sql).catch(async (error: unknown) => {
    // node-api throws for no statement at all (only comments or `;`), with an empty error: DuckDB's parser says which it was.
    if ((await serialize(connection, sql)).statements?.length === 0) throw new QueryNotAllowedError('The query is empty: it has only comments or semicolons');
    throw error;
  });
  if (statements.count > 1) {
    // DuckDB runs a PIVOT whose values it must look up first as two statements.
    const hint = /\bpivot\b/i.test(sql) ? ", as DuckDB runs a PIVOT without an IN list as two: name its values (ON column IN ('a', 'b'))" : '';
    throw new QueryNotAllowedError(`Only one statement is allowed; this has ${String(statements.count)}${hint}`);
  }
  const explained = EXPLAIN_PREFIX.exec(sql);
  const query = explained ? sql.slice(explained[0].length) : sql;
  const tree = await serialize(connection, query);
  if (tree.error === true || tree.statements?.length !== 1) {
    throw new QueryNotAllowedError('Only SELECT, WITH, SHOW, DESCRIBE and EXPLAIN queries are allowed: this statement would change or configure the database');
  }
  const reach = refusedReachIn(tree.statements);
  if (reach !== undefined) throw new QueryNotAllowedError(reach);
  if (explained) {
    const prepared = await statements.prepare(0);
    if (prepared.statementType !== StatementType.EXPLAIN) throw new QueryNotAllowedError('Only one EXPLAIN of a query is allowed');
  }
}

async function serialize(connection: DuckDBConnection, sql: string): Promise<SerializedSql> {
  // Named in full: unqualified, the function is looked up in the lake's catalog first (2 ms of DuckLake catalog reads).
  const reader = await connection.runAndReadAll('SELECT system.main.json_serialize_sql($sql::VARCHAR) AS tree', { sql });
  return JSON.parse(String(reader.getRowObjects()[0]?.tree)) as SerializedSql;
}

const FUNCTIONS: ReadonlySet<string> = new Set(allowed.functions.allowed);
const TABLE_FUNCTIONS: ReadonlySet<string> = new Set(allowed.table_functions.allowed);
const FUNCTION_REFUSAL = 'a query may call only functions that compute on values, not ones that read files, settings or other databases or change anything';
const TABLE_FUNCTION_REFUSAL = "a query may read only the warehouse's tables and rows computed from values (range, unnest, json_each), not files, other databases or DuckDB's own state";

/** A function call as json_serialize_sql writes it: operators (+, ~~, list_value) are calls too. */
interface FunctionCall {
  readonly function_name: string;
  readonly catalog?: unknown;
  readonly schema?: unknown;
  readonly children?: unknown;
}

/** Why the tree reaches past the warehouse (a function not allowed, a file named as a table), or undefined. */
function refusedReachIn(node: unknown): string | undefined {
  if (Array.isArray(node)) {
    for (const child of node) {
      const found = refusedReachIn(child);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (node === null || typeof node !== 'object') return undefined;
  const { type, table_name: tableName, function: tableFunction } = node as { type?: unknown; table_name?: unknown; function?: unknown };
  if (type === 'TABLE_FUNCTION' && isFunctionCall(tableFunction)) {
    const refused = refusedCall(tableFunction, TABLE_FUNCTIONS, TABLE_FUNCTION_REFUSAL);
    if (refused !== undefined) return refused;
    return refusedReachIn(tableFunction.children);
  }
  if (isFunctionCall(node)) {
    const refused = refusedCall(node, FUNCTIONS, FUNCTION_REFUSAL);
    if (refused !== undefined) return refused;
  }
  // `FROM 'file.csv'` is a table whose name DuckDB turns into a file scan.
  if (type === 'BASE_TABLE' && typeof tableName === 'string' && /[./\\:]/.test(tableName)) return `Reading files is not allowed here: "${tableName}" is not a table of the warehouse`;
  return refusedReachIn(Object.values(node));
}

function isFunctionCall(node: unknown): node is FunctionCall {
  return node !== null && typeof node === 'object' && typeof (node as { function_name?: unknown }).function_name === 'string';
}

function refusedCall(call: FunctionCall, allowedNames: ReadonlySet<string>, refusal: string): string | undefined {
  const name = call.function_name;
  if (!allowedNames.has(name.toLowerCase())) return `The function ${name} is not allowed here: ${refusal}`;
  // The reader's value guards (reader-value-guards.sql) stand in front of DuckDB's functions of the same name; a call
  // naming the system catalog (system.main.repeat) or the schema DuckDB reads as it (system.repeat) skips them.
  const qualifier = [call.catalog, call.schema].filter((part) => typeof part === 'string' && part !== '').join('.');
  if ([call.catalog, call.schema].some((part) => typeof part === 'string' && part.toLowerCase() === 'system')) {
    return `The function ${qualifier}.${name} is not allowed here: call it as ${name}, without the system catalog`;
  }
  return undefined;
}
