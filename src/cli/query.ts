import { userInfo } from 'node:os';
import { stringify } from 'csv-stringify/sync';
import { spreadsheetSafeRows, spreadsheetSafeText } from '../catalog/index.ts';
import type { QueryColumn } from '../warehouse/index.ts';
import { CliError } from './cli-error.ts';
import { callService, quarryServiceFor } from './quarry-service.ts';
import { textTable } from './text-table.ts';
import { withProject } from './with-project.ts';

const QUERY_FORMATS = ['table', 'csv', 'json'] as const;
type QueryFormat = (typeof QUERY_FORMATS)[number];

export interface QueryOptions {
  readonly project: string;
  /** table, csv or json. */
  readonly format: string;
  readonly limit?: number | undefined;
}

interface QueryResult {
  readonly columns: readonly QueryColumn[];
  readonly rows: readonly (readonly unknown[])[];
  readonly truncated: boolean;
}

/**
 * Runs one read-only query and formats its result: through the running Quarry's /api/query when one serves the
 * project and QUARRY_API_KEY holds a key, else on the warehouse directly, read-only, sandboxed and audited the same way.
 */
export async function runQuery(sql: string, options: QueryOptions, env: NodeJS.ProcessEnv): Promise<string> {
  const as = QUERY_FORMATS.find((format) => format === options.format);
  if (as === undefined) throw new CliError(`--format must be one of ${QUERY_FORMATS.join(', ')}`);
  const service = quarryServiceFor(options.project, env);
  const result = service !== undefined
    ? await callService<QueryResult>(service, 'POST', '/api/query', { sql, ...(options.limit === undefined ? {} : { limit: options.limit }) })
    : await withProject(options.project, env, (ctx) => ctx.queries.run({ sql, limit: options.limit, caller: { email: `cli:${userInfo().username}`, ip: null } }));
  return format(result, as);
}

function format(result: QueryResult, as: QueryFormat): string {
  const names = result.columns.map((column) => column.name);
  if (as === 'json') return JSON.stringify({ columns: result.columns, rows: result.rows, row_count: result.rows.length, truncated: result.truncated }, null, 2);
  if (as === 'csv') {
    const safe = spreadsheetSafeRows(result.columns);
    return stringify([names.map(spreadsheetSafeText), ...result.rows.map((row) => safe(row).map(cellText))]).trimEnd();
  }
  const table = textTable(names, result.rows.map((row) => row.map(cellText)));
  const count = `(${String(result.rows.length)} row${result.rows.length === 1 ? '' : 's'}${result.truncated ? ', more not shown' : ''})`;
  return `${table}\n${count}`;
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
