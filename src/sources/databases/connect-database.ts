import { SyncFailedError } from '../sync-failed-error.ts';
import type { DatabaseReader } from './database-reader.ts';
import { mysqlDialect } from './mysql-dialect.ts';
import { postgresDialect } from './postgres-dialect.ts';
import { ScannedDatabase } from './scanned-database.ts';
import { firstLineOf } from '../../errors.ts';

/** Connects by URL scheme; a failure names the host and the cause, never the URL (it holds the password). */
export async function connectDatabase(url: string, variable: string): Promise<DatabaseReader> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SyncFailedError(`The environment variable ${variable} does not hold a connection URL (postgresql://... or mysql://...)`);
  }
  const where = `${parsed.hostname}:${parsed.port === '' ? 'default port' : parsed.port}`;
  try {
    switch (parsed.protocol) {
      case 'postgres:': case 'postgresql:': return await ScannedDatabase.open(postgresDialect, parsed);
      case 'mysql:': case 'mariadb:': return await ScannedDatabase.open(mysqlDialect, parsed);
      default:
        throw new SyncFailedError(`The URL in ${variable} is for ${parsed.protocol.replace(/:$/, '')}; relational_db reads postgresql:// and mysql:// databases`);
    }
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
  if (/could not translate host name|unknown (mysql )?server host|name or service not known/i.test(message)) return 'the host name does not resolve';
  const password = decodeURIComponent(url.password);
  return password === '' ? message : message.replaceAll(password, '***');
}
