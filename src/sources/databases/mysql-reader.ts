import { createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import mysql from 'mysql2';
import type { Connection as PromiseConnection } from 'mysql2/promise';
import type { CursorRange, DatabaseReader, ExportResult, TableDescription } from './database-reader.ts';

/** information_schema's numbers arrive as text: the connection reads big numbers as strings. */
interface MysqlColumn { name: string; dataType: string; columnType: string; precision: number | string | null; scale: number | string | null }

/** The DuckDB type a MySQL/MariaDB column loads as; anything without a faithful match loads as text, never lossy. */
export function duckdbTypeOfMysql(column: Omit<MysqlColumn, 'name'>): string {
  const unsigned = column.columnType.includes('unsigned');
  switch (column.dataType) {
    // tinyint(1) is how MySQL spells BOOLEAN, but it holds any small number: a 2 must load, not fail the sync.
    case 'tinyint': return unsigned ? 'UTINYINT' : 'TINYINT';
    case 'smallint': return unsigned ? 'USMALLINT' : 'SMALLINT';
    case 'mediumint': case 'int': case 'integer': return unsigned ? 'UINTEGER' : 'INTEGER';
    case 'bigint': return unsigned ? 'UBIGINT' : 'BIGINT';
    case 'decimal': case 'numeric': {
      const precision = Number(column.precision ?? 10);
      return precision <= 38 ? `DECIMAL(${String(precision)},${String(Number(column.scale ?? 0))})` : 'DOUBLE';
    }
    case 'float': return 'FLOAT';
    case 'double': case 'real': return 'DOUBLE';
    case 'date': return 'DATE';
    case 'datetime': case 'timestamp': return 'TIMESTAMP';
    case 'year': return 'INTEGER';
    case 'json': return 'JSON';
    default: return 'VARCHAR';
  }
}

function quote(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

/**
 * A CSV field as PostgreSQL's COPY with FORCE_QUOTE writes it, so both load alike: every value quoted,
 * NULL an empty unquoted field. MySQL's zero dates have no value in any other system: they load as NULL.
 */
function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  // Numbers come as text already (bigNumberStrings); the driver parses JSON columns, which go back to JSON text.
  const text = Buffer.isBuffer(value) ? value.toString('utf8') : typeof value === 'string' ? value : JSON.stringify(value);
  return text.startsWith('0000-00-00') ? '' : `"${text.replaceAll('"', '""')}"`;
}

export class MysqlReader implements DatabaseReader {
  readonly defaultSchema: string;
  readonly #streaming: mysql.Connection;
  readonly #connection: PromiseConnection;

  private constructor(streaming: mysql.Connection, defaultSchema: string) {
    this.#streaming = streaming;
    this.#connection = streaming.promise();
    this.defaultSchema = defaultSchema;
  }

  static async connect(url: string): Promise<MysqlReader> {
    const parsed = new URL(url);
    const connection = mysql.createConnection({
      uri: url, connectTimeout: 15_000, dateStrings: true, supportBigNumbers: true, bigNumberStrings: true, decimalNumbers: false, timezone: 'Z',
    });
    connection.on('error', () => undefined); // a dropped connection surfaces as the failing query's error
    const reader = new MysqlReader(connection, decodeURIComponent(parsed.pathname.replace(/^\//, '')));
    await reader.#connection.query("SET time_zone = '+00:00'");
    return reader;
  }

  async listTables(schema: string): Promise<string[]> {
    const [rows] = await this.#connection.query(
      'SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY 1', [schema],
    );
    return (rows as { name: string }[]).map((row) => row.name);
  }

  async describe(schema: string, table: string): Promise<TableDescription> {
    const [columns] = await this.#connection.query(`
      SELECT COLUMN_NAME AS name, DATA_TYPE AS dataType, COLUMN_TYPE AS columnType, NUMERIC_PRECISION AS \`precision\`, NUMERIC_SCALE AS scale, COLUMN_KEY AS columnKey
      FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, [schema, table]);
    const rows = columns as (MysqlColumn & { columnKey: string })[];
    return {
      columns: rows.map((column) => ({ name: column.name, duckdbType: duckdbTypeOfMysql(column) })),
      primaryKey: rows.filter((column) => column.columnKey === 'PRI').map((column) => column.name),
    };
  }

  async exportCsv(schema: string, table: string, description: TableDescription, range: CursorRange | undefined, file: string, signal: AbortSignal): Promise<ExportResult> {
    const connection = this.#connection;
    const source = `${quote(schema)}.${quote(table)}`;
    await connection.query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
    try {
      let where = '';
      let highest: string | undefined;
      if (range !== undefined) {
        const cursor = quote(range.column);
        const after = range.after === undefined ? 'TRUE' : `${cursor} > ${connection.escape(range.after)}`;
        const [max] = await connection.query(`SELECT CAST(max(${cursor}) AS CHAR) AS highest FROM ${source} WHERE ${after}`);
        highest = (max as { highest: string | null }[])[0]?.highest ?? undefined;
        if (highest === undefined) {
          await connection.query('COMMIT');
          return { highest: undefined, exported: false };
        }
        where = ` WHERE ${after} AND ${cursor} <= ${connection.escape(highest)}`;
      }
      const names = description.columns.map((column) => column.name);
      const sql = `SELECT ${names.map(quote).join(', ')} FROM ${source}${where}`;
      // The promise wrapper has no row stream; the callback connection beneath it does.
      const rows = this.#streaming.query({ sql, rowsAsArray: true }).stream({ highWaterMark: 1000 });
      const toCsvLines = new Transform({
        writableObjectMode: true,
        transform(row: unknown[], _encoding, done) { done(null, `${row.map(csvField).join(',')}\n`); },
      });
      toCsvLines.push(`${names.map(csvField).join(',')}\n`);
      await pipeline(rows, toCsvLines, createWriteStream(file), { signal });
      await connection.query('COMMIT');
      return { highest, exported: true };
    } catch (error) {
      // A connection left mid-stream would first send every remaining row: cut it (the server rolls back).
      if (signal.aborted) this.#streaming.destroy();
      else await connection.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.#connection.end();
  }
}
