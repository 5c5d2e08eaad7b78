import { randomBytes } from 'node:crypto';
import { LAKE_FILE_COPY_OPTIONS, openScratchConnection, quoteIdentifier, quoteLiteral, type ScratchConnection } from '../../warehouse/index.ts';
import { databaseNameOf, type DatabaseDialect, type RemoteRow } from './database-dialect.ts';
import type { CursorRange, DatabaseReader, ExportResult, TableDescription } from './database-reader.ts';

/** The name the database is attached under in the extraction's own DuckDB. */
const SOURCE = 'source_db';

/**
 * A PostgreSQL or MySQL database read through DuckDB's own scanner (binary COPY, parallel by page ranges
 * for PostgreSQL), inside one read-only transaction held for the whole extraction, so every table comes
 * from the same snapshot. The password travels in a secret, never in the ATTACH string, which errors quote.
 */
export class ScannedDatabase implements DatabaseReader {
  readonly defaultSchema: string;
  readonly #scratch: ScratchConnection;
  readonly #dialect: DatabaseDialect;
  readonly #url: URL;
  readonly #address: string;
  readonly #applicationName: string;

  private constructor(scratch: ScratchConnection, dialect: DatabaseDialect, url: URL, address: string, applicationName: string) {
    this.#scratch = scratch;
    this.#dialect = dialect;
    this.#url = url;
    this.#address = address;
    this.#applicationName = applicationName;
    this.defaultSchema = dialect.defaultSchema(url);
  }

  /** Connects to `address`, which the URL's host resolved to and the outbound policy allowed. */
  static async open(dialect: DatabaseDialect, url: URL, address: string): Promise<ScannedDatabase> {
    const scratch = await openScratchConnection([dialect.extension]);
    try {
      const { connection } = scratch;
      await connection.run("SET TimeZone = 'UTC'");
      for (const [name, value] of Object.entries(dialect.settings)) await connection.run(`SET ${name} = ${quoteLiteral(value)}`);
      const secret = {
        ...dialect.serverSecret(url.hostname.replace(/^\[(.*)\]$/, '$1'), address), PORT: url.port === '' ? String(dialect.defaultPort) : url.port,
        DATABASE: databaseNameOf(url), USER: decodeURIComponent(url.username), PASSWORD: decodeURIComponent(url.password),
      };
      const options = Object.entries(secret).filter(([, value]) => value !== '').map(([name, value]) => `${name} ${quoteLiteral(value)}`);
      await connection.run(`CREATE TEMPORARY SECRET ${SOURCE}_secret (TYPE ${dialect.type}, ${options.join(', ')})`);
      const applicationName = `quarry_${randomBytes(6).toString('hex')}`;
      await connection.run(`ATTACH ${quoteLiteral(attachString(dialect, url, applicationName))} AS ${SOURCE} (TYPE ${dialect.type}, SECRET ${SOURCE}_secret, READ_ONLY)`);
      // The scanner opens its repeatable-read transaction on the database with this one and shares its snapshot with every parallel reader.
      await connection.run('BEGIN TRANSACTION');
      return new ScannedDatabase(scratch, dialect, url, address, applicationName);
    } catch (error) {
      await scratch.close();
      throw error;
    }
  }

  async listTables(schema: string): Promise<string[]> {
    const rows = await this.#remote(this.#dialect.tablesSql(schema));
    return rows.map((row) => String(row.name));
  }

  async describe(schema: string, table: string): Promise<TableDescription> {
    const rows = await this.#remote(this.#dialect.columnsSql(schema, table));
    const keyed = rows.filter((row) => row.key_position !== null).sort((a, b) => Number(a.key_position) - Number(b.key_position));
    return {
      columns: rows.map((row) => ({ name: String(row.name), duckdbType: this.#dialect.duckdbType(row) })),
      primaryKey: keyed.map((row) => String(row.name)),
    };
  }

  async exportParquet(schema: string, table: string, description: TableDescription, range: CursorRange | undefined, file: string, signal: AbortSignal): Promise<ExportResult> {
    const columns = description.columns.map(({ name, duckdbType }) => `CAST(${quoteIdentifier(name)} AS ${duckdbType}) AS ${quoteIdentifier(name)}`);
    // The scanner pushes this filter into the database's own query.
    const where = range?.after === undefined ? '' : ` WHERE ${quoteIdentifier(range.column)} > ${quoteLiteral(range.after)}`;
    const source = `${SOURCE}.${quoteIdentifier(schema)}.${quoteIdentifier(table)}`;
    const copied = await this.#cancellable(signal, () => this.#scratch.connection.run(
      `COPY (SELECT ${columns.join(', ')} FROM ${source}${where}) TO ${quoteLiteral(file)} (${LAKE_FILE_COPY_OPTIONS})`,
    ));
    if (range === undefined) return { highest: undefined, exported: true };
    if (copied.rowsChanged === 0) return { highest: undefined, exported: false };
    // Read back from the file just written: the same rows, without a second pass over the database.
    const highest = await this.#scratch.connection.runAndReadAll(`SELECT max(${quoteIdentifier(range.column)})::VARCHAR FROM read_parquet(${quoteLiteral(file)})`);
    const value = highest.getRows()[0]?.[0];
    return { highest: typeof value === 'string' ? value : undefined, exported: true };
  }

  async close(): Promise<void> {
    await this.#scratch.connection.run('ROLLBACK').catch(() => undefined);
    await this.#scratch.close();
  }

  async #remote(sql: string): Promise<RemoteRow[]> {
    const result = await this.#scratch.connection.runAndReadAll(`SELECT * FROM ${this.#dialect.queryFunction}(${quoteLiteral(SOURCE)}, ${quoteLiteral(sql)})`);
    return result.getRowObjectsJS();
  }

  async #cancellable<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    const stop = (): void => {
      this.#scratch.connection.interrupt();
      this.#dialect.cancel?.(this.#url, this.#address, this.#applicationName).catch(() => undefined);
    };
    signal.addEventListener('abort', stop, { once: true });
    try {
      signal.throwIfAborted();
      return await work();
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }
}

/**
 * The connection options of the URL's query (`?sslmode=require`, `?ssl_mode=REQUIRED`) as the keywords the
 * scanner hands its client library, plus the application name a stop cancels by; never the password.
 */
function attachString(dialect: DatabaseDialect, url: URL, applicationName: string): string {
  const options = [...url.searchParams].filter(([name]) => /^[a-z_]+$/i.test(name) && name.toLowerCase() !== 'password');
  if (dialect.type === 'postgres') options.push(['application_name', applicationName]);
  return options.map(([name, value]) => `${name}='${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`).join(' ');
}
