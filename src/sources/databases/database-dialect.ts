/** The database a connection URL names: its path, without the slash. */
export function databaseNameOf(url: URL): string {
  return decodeURIComponent(url.pathname.replace(/^\//, ''));
}

/** One row of a dialect's column query, as DuckDB hands back the remote result. */
export type RemoteRow = Readonly<Record<string, unknown>>;

/** What tells PostgreSQL and MySQL apart when DuckDB reads them through its own scanner extension. */
export interface DatabaseDialect {
  /** The extension that reads this database. */
  readonly extension: 'postgres_scanner' | 'mysql_scanner';
  /** The TYPE of its secret and ATTACH. */
  readonly type: 'postgres' | 'mysql';
  /** The table function that runs the database's own SQL. */
  readonly queryFunction: 'postgres_query' | 'mysql_query';
  readonly defaultPort: number;
  /**
   * The connection options a URL may set after `?`, as the client library spells them: how to talk to the
   * server, never where it is (another host, a socket, a service file) nor a file of this machine to read or
   * write (certificates, key logs, password files).
   */
  readonly urlOptions: readonly string[];
  /** What an option's value may hold: what the client library's own parsing of the options cannot misread. */
  readonly urlOptionValue: RegExp;
  /** Scanner settings, set before the ATTACH, under which values arrive as the declared types expect. */
  readonly settings: Readonly<Record<string, string>>;
  /**
   * The secret's entries that send the client library to `address`, the one the outbound policy checked, and
   * never to what `host` resolves to when it connects; where the library can, `host` stays, to verify TLS by.
   */
  serverSecret(host: string, address: string): Readonly<Record<string, string>>;
  defaultSchema(url: URL): string;
  /** The database's SQL listing the schema's tables and views, as `name`. */
  tablesSql(schema: string): string;
  /** The database's SQL listing the table's columns in order: `name`, what `duckdbType` reads, and `key_position` (null outside the primary key). */
  columnsSql(schema: string, table: string): string;
  duckdbType(column: RemoteRow): string;
  /**
   * Cancels the extraction's queries in flight on the server, found by the application name its connections
   * carry; DuckDB's own interrupt waits for the next batch of rows, which a slow query may take minutes to send.
   */
  cancel?(url: URL, address: string, applicationName: string): Promise<void>;
}
