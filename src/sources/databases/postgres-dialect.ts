import { Socket } from 'node:net';
import pg from 'pg';
import { quoteLiteral } from '../../warehouse/index.ts';
import type { DatabaseDialect, RemoteRow } from './database-dialect.ts';

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

export const postgresDialect: DatabaseDialect = {
  extension: 'postgres_scanner',
  type: 'postgres',
  queryFunction: 'postgres_query',
  defaultPort: 5432,
  urlOptions: [
    'sslmode', 'sslnegotiation', 'sslcompression', 'sslsni', 'ssl_min_protocol_version', 'ssl_max_protocol_version', 'channel_binding',
    'gssencmode', 'require_auth', 'connect_timeout', 'tcp_user_timeout', 'keepalives', 'keepalives_idle', 'keepalives_interval', 'keepalives_count',
    'target_session_attrs', 'client_encoding', 'options',
  ],
  // libpq reads a quoted value whole (attachString quotes it).
  urlOptionValue: /^[^\0]*$/,
  // Arrays arrive in PostgreSQL's own text form ({a,b}), as they loaded before.
  settings: { pg_array_as_varchar: 'true' },
  // libpq connects to hostaddr without resolving host, and checks the server's certificate against host.
  serverSecret: (host, address) => ({ HOST: host, HOSTADDR: address }),
  defaultSchema: () => 'public',
  tablesSql: (schema) => `SELECT table_name::text AS name FROM information_schema.tables
    WHERE table_schema = ${quoteLiteral(schema)} AND table_type IN ('BASE TABLE', 'VIEW') ORDER BY 1`,
  columnsSql: (schema, table) => `
    SELECT a.attname::text AS name, format_type(a.atttypid, a.atttypmod) AS type, t.typcategory::text AS category,
      array_position(i.indkey::int2[], a.attnum) AS key_position
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_type t ON t.oid = a.atttypid
    LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary
    WHERE n.nspname = ${quoteLiteral(schema)} AND c.relname = ${quoteLiteral(table)} AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
  duckdbType: (column: RemoteRow) => duckdbTypeOfPostgres(String(column.type), String(column.category)),
  async cancel(url, address, applicationName) {
    const client = new pg.Client({ connectionString: url.href, connectionTimeoutMillis: 5000, stream: () => socketTo(address) });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()', [applicationName]);
    } finally {
      await client.end().catch(() => undefined);
    }
  },
};

/**
 * A socket that connects to `address` whatever host pg asks for: pg has no `lookup` option and would resolve the
 * URL's host again, while its TLS upgrade still verifies the certificate against that host.
 */
function socketTo(address: string): Socket {
  const socket = new Socket();
  const connect = socket.connect.bind(socket);
  return Object.assign(socket, { connect: (port: number) => connect(port, address) });
}
