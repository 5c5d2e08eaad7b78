import { StatementType, type DuckDBConnection } from '@duckdb/node-api';
import { InvalidRequestError } from '../errors.ts';
import refused from './reader-refused-functions.json' with { type: 'json' };

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
 * EXPLAIN of one) that calls no refused function and names no file, as DuckDB itself parses it.
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

/** Why the tree reaches past the warehouse (a refused function, a file named as a table), or undefined. */
function refusedReachIn(node: unknown): string | undefined {
  if (Array.isArray(node)) {
    for (const child of node) {
      const found = refusedReachIn(child);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (node === null || typeof node !== 'object') return undefined;
  const { function_name: functionName, type, table_name: tableName } = node as { function_name?: unknown; type?: unknown; table_name?: unknown };
  if (typeof functionName === 'string' && isRefused(functionName.toLowerCase())) return `The function ${functionName} is not allowed here: it reads outside the warehouse`;
  // `FROM 'file.csv'` is a table whose name DuckDB turns into a file scan.
  if (type === 'BASE_TABLE' && typeof tableName === 'string' && /[./\\:]/.test(tableName)) return `Reading files is not allowed here: "${tableName}" is not a table of the warehouse`;
  return refusedReachIn(Object.values(node));
}

function isRefused(name: string): boolean {
  return refused.names.includes(name) || refused.prefixes.some((prefix) => name.startsWith(prefix));
}
