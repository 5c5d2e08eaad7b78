import { databaseNameOf, type DatabaseDialect, type RemoteRow } from './database-dialect.ts';

interface MysqlColumn { dataType: string; columnType: string; precision: unknown; scale: unknown }

/** The DuckDB type a MySQL/MariaDB column loads as; anything without a faithful match loads as text, never lossy. */
export function duckdbTypeOfMysql(column: MysqlColumn): string {
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

/** A MySQL string literal under the default sql_mode, where a backslash escapes. */
function literal(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

export const mysqlDialect: DatabaseDialect = {
  extension: 'mysql_scanner',
  type: 'mysql',
  queryFunction: 'mysql_query',
  defaultPort: 3306,
  urlOptions: ['ssl_mode', 'ssl_cipher', 'compress'],
  // The MySQL scanner ends an unquoted value at a space or `=`, and knows no single quotes: a value with them could
  // smuggle in options of its own (host=, socket=, ssl_ca=).
  urlOptionValue: /^[\w.:+-]*$/,
  // The client library has no separate address: it connects to, and verifies TLS identity against, the address.
  serverSecret: (_host, address) => ({ HOST: address }),
  settings: {
    // A tinyint(1) holding 2 must load as the number it is.
    mysql_tinyint1_as_boolean: 'false',
    // MySQL's zero dates have no value in any other system.
    mysql_incomplete_dates_as_nulls: 'true',
    mysql_session_time_zone: '+00:00',
  },
  defaultSchema: databaseNameOf,
  tablesSql: (schema) => `SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = ${literal(schema)} ORDER BY 1`,
  columnsSql: (schema, table) => `
    SELECT COLUMN_NAME AS name, DATA_TYPE AS data_type, COLUMN_TYPE AS column_type, NUMERIC_PRECISION AS num_precision, NUMERIC_SCALE AS num_scale,
      CASE WHEN COLUMN_KEY = 'PRI' THEN ORDINAL_POSITION END AS key_position
    FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ${literal(schema)} AND TABLE_NAME = ${literal(table)} ORDER BY ORDINAL_POSITION`,
  duckdbType: (column: RemoteRow) => duckdbTypeOfMysql({
    dataType: String(column.data_type), columnType: String(column.column_type), precision: column.num_precision, scale: column.num_scale,
  }),
};
