import { firstLineOf } from '../errors.ts';
import { SharedRuns } from '../shared-runs.ts';
import { reachLakeBucket } from './lake-bucket.ts';
import { catalogMissing, dataInBucket, LAKE_ALIAS } from './lake-location.ts';
import type { WarehouseReaders } from './read-query.ts';

/**
 * The check each pool is running: requests that arrive while it runs share its answer. A check per request
 * took a pooled reader each, and at 200 health requests a second they queued behind each other for up to a second.
 */
const checks = new SharedRuns<WarehouseReaders, string | undefined>();

/**
 * Why readers (dashboards, the docs catalog) cannot read the lake through the reader sandbox (a damaged
 * catalog, missing extensions, a bucket that cannot be listed), or undefined when they can, or when there is no lake yet. Asks a pooled
 * reader: opening one is what fails first, and the pool reopens its readers when that failed.
 */
export async function lakeProblem(readers: WarehouseReaders): Promise<string | undefined> {
  if (catalogMissing(readers.lake)) return undefined;
  return checks.run(readers, () => askReader(readers));
}

async function askReader(readers: WarehouseReaders): Promise<string | undefined> {
  try {
    // A snapshot an earlier query kept would answer from what DuckLake read then, not from the files as they are.
    await readers.withReader(async (connection) => {
      await connection.run(`SELECT count(*) FROM duckdb_tables() WHERE database_name = '${LAKE_ALIAS}'`);
      if (dataInBucket(readers.lake)) await reachLakeBucket(connection, readers.lake);
    }, { freshSnapshot: true });
    return undefined;
  } catch (error) {
    return firstLineOf(error);
  }
}
