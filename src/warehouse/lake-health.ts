import { firstLineOf } from '../errors.ts';
import { catalogMissing, LAKE_ALIAS, type LakeLocation } from './lake-location.ts';
import { withSandboxedReader } from './sandboxed-reader.ts';

/**
 * Why readers (dashboards, the docs catalog) cannot read the lake through the reader sandbox (a damaged
 * catalog, missing extensions), or undefined when they can, or when there is no lake yet.
 */
export async function lakeProblem(location: LakeLocation): Promise<string | undefined> {
  if (catalogMissing(location)) return undefined;
  try {
    await withSandboxedReader(location, (connection) => connection.run(`SELECT count(*) FROM duckdb_tables() WHERE database_name = '${LAKE_ALIAS}'`));
    return undefined;
  } catch (error) {
    return firstLineOf(error);
  }
}
