import type { DuckDBConnection } from '@duckdb/node-api';
import { firstLineOf } from '../errors.ts';
import { loadLakeExtensions } from './lake-connection.ts';
import { dataInBucket, type LakeLocation } from './lake-location.ts';
import { openScratchConnection } from './scratch-connection.ts';
import { quoteLiteral } from './sql.ts';

/**
 * Lists the keys under the lake's prefix that start with a name never used (a pattern: DuckDB does not look a plain
 * key up): one request, which a missing bucket, refused keys or an endpoint that does not answer fail, whatever the
 * size of the lake. `connection` holds the lake's secrets.
 */
export async function reachLakeBucket(connection: DuckDBConnection, lake: LakeLocation): Promise<void> {
  try {
    await connection.run(`SELECT count(*) FROM glob(${quoteLiteral(`${lake.dataPath}quarry-reachability-probe*`)})`);
  } catch (error) {
    throw new Error(`its bucket ${lake.dataPath} cannot be listed: ${firstLineOf(error)}`, { cause: error });
  }
}

/**
 * Why this process cannot reach the lake's bucket with the keys it has, or undefined when it can or the lake has
 * no bucket. Asked on an in-memory instance of its own, for a process that opens no reader to ask (a worker).
 */
export async function lakeBucketProblem(lake: LakeLocation): Promise<string | undefined> {
  if (!dataInBucket(lake)) return undefined;
  const scratch = await openScratchConnection([]);
  try {
    await loadLakeExtensions(scratch.connection, lake);
    await reachLakeBucket(scratch.connection, lake);
    return undefined;
  } catch (error) {
    return firstLineOf(error);
  } finally {
    await scratch.close();
  }
}
