import { LAKE_ALIAS, type LakeLocation } from './lake-location.ts';
import { listLakeTables } from './lake-tables.ts';
import { withSandboxedReader } from './sandboxed-reader.ts';
import { quoteIdentifier } from './sql.ts';

/**
 * What each table of the lake holds, `schema.table` → its rows and a sum of their hashes (every value read): a lake
 * moved or copied elsewhere must give the same, read through a sandboxed reader of its new location.
 */
export async function fingerprints(location: LakeLocation): Promise<Map<string, string>> {
  return withSandboxedReader(location, async (connection) => {
    const found = new Map<string, string>();
    for (const table of (await listLakeTables(connection, location)).filter((candidate) => candidate.kind === 'table')) {
      const name = `${quoteIdentifier(table.schema)}.${quoteIdentifier(table.name)}`;
      const reader = await connection.runAndReadAll(`SELECT count(*)::VARCHAR || ':' || coalesce(sum(hash(t)), 0)::VARCHAR FROM ${quoteIdentifier(LAKE_ALIAS)}.${name} t`);
      found.set(`${table.schema}.${table.name}`, String(reader.getRows()[0]?.[0]));
    }
    return found;
  });
}
