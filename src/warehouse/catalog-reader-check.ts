import { QuarryError, firstLineOf } from '../errors.ts';
import { LAKE_ALIAS, readerCatalog, type PostgresCatalog } from './lake-location.ts';
import type { WarehouseReaders } from './read-query.ts';

/** The reader role project.yml names cannot read the lake: a start-up error that says which role and why. */
export class CatalogReaderRefusedError extends QuarryError {
  readonly code = 'warehouse_reader_refused';
  constructor(catalog: PostgresCatalog, reason: string) {
    super(`The warehouse catalog's reader role (warehouse.reader in project.yml) postgres://${catalog.user}@${catalog.host}:${String(catalog.port)}/${catalog.database} cannot read the lake: ${reason}. `
      + `It needs USAGE on the schema ${catalog.metadataSchema} and SELECT on its tables (docs/operations.md, "The PostgreSQL roles")`);
  }
}

/**
 * Checks at start, once the lake exists, that the reader role project.yml names attaches the lake, by opening
 * the pooled readers (a wrong password or a missing grant would otherwise fail each query and the dashboard tool).
 */
export async function checkCatalogReader(readers: WarehouseReaders): Promise<void> {
  const { catalog } = readers.lake;
  if (catalog.kind !== 'postgres' || catalog.reader === undefined) return;
  try {
    await readers.withReader((connection) => connection.run(`SELECT count(*) FROM duckdb_tables() WHERE database_name = '${LAKE_ALIAS}'`));
  } catch (error) {
    const reader = readerCatalog(catalog);
    throw new CatalogReaderRefusedError(reader, postgresReason(error, reader.password));
  }
}

/** PostgreSQL's own words from DuckDB's error (which first quotes the statement it sent), the password masked. */
function postgresReason(error: unknown, password: string | undefined): string {
  const line = firstLineOf(error);
  const reason = /(?:ERROR|FATAL):\s+(.*)$/.exec(line)?.[1] ?? line;
  return password === undefined || password === '' ? reason : reason.replaceAll(password, '***');
}
