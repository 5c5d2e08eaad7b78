import type { OutboundPolicy } from '../outbound/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import type { DatabaseDialect } from './database-dialect.ts';
import type { DatabaseReader } from './database-reader.ts';
import { mysqlDialect } from './mysql-dialect.ts';
import { postgresDialect } from './postgres-dialect.ts';
import { ScannedDatabase } from './scanned-database.ts';
import { firstLineOf } from '../../errors.ts';

const DIALECTS: Readonly<Partial<Record<string, DatabaseDialect>>> = {
  'postgres:': postgresDialect, 'postgresql:': postgresDialect, 'mysql:': mysqlDialect, 'mariadb:': mysqlDialect,
};

/**
 * Connects by URL scheme to the address the URL's host resolves to, once the outbound policy allowed it; a
 * failure names the host and the cause, never the URL (it holds the password).
 */
export async function connectDatabase(url: string, variable: string, outbound: OutboundPolicy): Promise<DatabaseReader> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SyncFailedError(`The environment variable ${variable} does not hold a connection URL (postgresql://... or mysql://...)`);
  }
  const dialect = DIALECTS[parsed.protocol];
  if (dialect === undefined) {
    throw new SyncFailedError(`The URL in ${variable} is for ${parsed.protocol.replace(/:$/, '')}; relational_db reads postgresql:// and mysql:// databases`);
  }
  if (parsed.hostname === '') {
    throw new SyncFailedError(`The URL in ${variable} names no host: write the database's host in the URL (${parsed.protocol}//user:password@host:port/database)`);
  }
  const refused = [...parsed.searchParams.keys()].find((name) => !dialect.urlOptions.includes(name.toLowerCase()));
  if (refused !== undefined) {
    throw new SyncFailedError(
      `The URL in ${variable} sets ${refused}=, which Quarry does not hand the database's client: the host belongs in the URL (${parsed.protocol}//user:password@host:port/database), `
      + `and after ? only these options: ${dialect.urlOptions.join(', ')}`,
    );
  }
  const unreadable = [...parsed.searchParams].find(([, value]) => !dialect.urlOptionValue.test(value));
  if (unreadable !== undefined) {
    throw new SyncFailedError(`The URL in ${variable} gives ${unreadable[0]}= a value the database's client would misread: use letters, digits and . : + - _ only`);
  }
  const where = `${parsed.hostname}:${parsed.port === '' ? 'default port' : parsed.port}`;
  try {
    const address = await outbound.resolveReachable(parsed.hostname);
    return await ScannedDatabase.open(dialect, parsed, address);
  } catch (error) {
    if (error instanceof SyncFailedError) throw error;
    throw new SyncFailedError(`Could not connect to the database at ${where}: ${databaseCause(error, parsed)}`);
  }
}

/** A driver's error in one line, with the password masked should the driver have echoed it. */
export function databaseCause(error: unknown, url: URL): string {
  // The scanner names the ATTACH string it connected with, which says nothing to the user.
  const message = firstLineOf(error).replace(/^IO Error: (Unable to connect to \w+ at|Failed to connect to \w+ database with parameters) "[^"]*": /, '');
  if (/connection refused/i.test(message)) return 'connection refused';
  if (/could not translate host name|unknown (mysql )?server host|name or service not known|ENOTFOUND|EAI_AGAIN/i.test(message)) return 'the host name does not resolve';
  const password = decodeURIComponent(url.password);
  return password === '' ? message : message.replaceAll(password, '***');
}
