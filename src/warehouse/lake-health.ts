import { firstLineOf } from '../errors.ts';
import { catalogMissing, LAKE_ALIAS } from './lake-location.ts';
import type { WarehouseReaders } from './read-query.ts';

/**
 * Why readers (dashboards, the docs catalog) cannot read the lake through the reader sandbox (a damaged
 * catalog, missing extensions), or undefined when they can, or when there is no lake yet. Asks a pooled
 * reader: opening one is what fails first, and the pool reopens its readers when that failed.
 */
export async function lakeProblem(readers: WarehouseReaders): Promise<string | undefined> {
  if (catalogMissing(readers.lake)) return undefined;
  try {
    await readers.withReader((connection) => connection.run(`SELECT count(*) FROM duckdb_tables() WHERE database_name = '${LAKE_ALIAS}'`));
    return undefined;
  } catch (error) {
    return firstLineOf(error);
  }
}
