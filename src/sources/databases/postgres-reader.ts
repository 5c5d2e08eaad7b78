import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { CursorRange, DatabaseReader, ExportResult, TableDescription } from './database-reader.ts';

/**
 * The DuckDB type a PostgreSQL column loads as; anything without a faithful match loads as text. The one
 * approximation: numeric without a precision (or past DuckDB's 38 digits) loads as DOUBLE, to stay a number.
 */
export function duckdbTypeOfPostgres(type: string, category: string): string {
  if (category === 'A') return 'VARCHAR';
  const numeric = /^numeric\((\d+),(\d+)\)$/.exec(type);
  if (numeric !== null) return Number(numeric[1]) <= 38 ? `DECIMAL(${numeric[1] ?? '18'},${numeric[2] ?? '3'})` : 'DOUBLE';
  if (/^timestamp(\(\d\))? without time zone$/.test(type)) return 'TIMESTAMP';
  if (/^timestamp(\(\d\))? with time zone$/.test(type)) return 'TIMESTAMPTZ';
  if (/^time(\(\d\))? without time zone$/.test(type)) return 'TIME';
  const exact: Record<string, string> = {
    smallint: 'SMALLINT', integer: 'INTEGER', bigint: 'BIGINT', real: 'FLOAT', 'double precision': 'DOUBLE', numeric: 'DOUBLE',
    boolean: 'BOOLEAN', date: 'DATE', uuid: 'UUID', json: 'JSON', jsonb: 'JSON',
  };
  return exact[type] ?? 'VARCHAR';
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export class PostgresReader implements DatabaseReader {
  readonly defaultSchema = 'public';
  readonly #client: pg.Client;

  private constructor(client: pg.Client) {
    this.#client = client;
  }

  static async connect(url: string): Promise<PostgresReader> {
    const client = new pg.Client({ connectionString: url, application_name: 'quarry', connectionTimeoutMillis: 15_000 });
    client.on('error', () => undefined); // a dropped connection surfaces as the failing query's error
    await client.connect();
    // Text output the CSV reader understands whatever the server's settings.
    await client.query("SET DateStyle = 'ISO, YMD'; SET TimeZone = 'UTC'; SET extra_float_digits = 3; SET IntervalStyle = 'iso_8601'");
    return new PostgresReader(client);
  }

  async listTables(schema: string): Promise<string[]> {
    const result = await this.#client.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 AND table_type IN ('BASE TABLE', 'VIEW') ORDER BY 1",
      [schema],
    );
    return result.rows.map((row) => row.name);
  }

  async describe(schema: string, table: string): Promise<TableDescription> {
    const columns = await this.#client.query<{ name: string; type: string; category: string }>(`
      SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, t.typcategory AS category
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_type t ON t.oid = a.atttypid
      WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, [schema, table]);
    const primaryKey = await this.#client.query<{ name: string }>(`
      SELECT a.attname AS name FROM pg_index i
      JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
      WHERE n.nspname = $1 AND c.relname = $2 AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)`, [schema, table]);
    return {
      columns: columns.rows.map((row) => ({ name: row.name, duckdbType: duckdbTypeOfPostgres(row.type, row.category) })),
      primaryKey: primaryKey.rows.map((row) => row.name),
    };
  }

  async exportCsv(schema: string, table: string, description: TableDescription, range: CursorRange | undefined, file: string, signal: AbortSignal): Promise<ExportResult> {
    const client = this.#client;
    const source = `${quote(schema)}.${quote(table)}`;
    const columns = description.columns.map((column) => quote(column.name)).join(', ');
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      let where = '';
      let highest: string | undefined;
      if (range !== undefined) {
        const cursor = quote(range.column);
        const after = range.after === undefined ? 'TRUE' : `${cursor} > ${client.escapeLiteral(range.after)}`;
        const max = await client.query<{ highest: string | null }>(`SELECT max(${cursor})::text AS highest FROM ${source} WHERE ${after}`);
        highest = max.rows[0]?.highest ?? undefined;
        if (highest === undefined) {
          await client.query('COMMIT');
          return { highest: undefined, exported: false };
        }
        where = ` WHERE ${after} AND ${cursor} <= ${client.escapeLiteral(highest)}`;
      }
      const copy = client.query(copyTo(`COPY (SELECT ${columns} FROM ${source}${where}) TO STDOUT WITH (FORMAT csv, HEADER true, FORCE_QUOTE *)`));
      await pipeline(copy, createWriteStream(file), { signal });
      await client.query('COMMIT');
      return { highest, exported: true };
    } catch (error) {
      // A connection left mid-COPY never answers a ROLLBACK: cut it (the server rolls back on its own).
      if (signal.aborted) this.#cut();
      else await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  /** Drops the socket at once; the driver offers no public way to abandon a COPY in flight. */
  #cut(): void {
    (this.#client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }

  async close(): Promise<void> {
    await this.#client.end();
  }
}
