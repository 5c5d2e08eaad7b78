import { quoteIdentifier } from '../../src/warehouse/index.ts';
import type { TestQuarry } from './quarry.ts';

/**
 * Makes the next load into a raw table fail inside its transaction (the table becomes a view of
 * itself, which no row can be inserted into); the returned function puts the table back.
 */
export async function blockLoadsInto(quarry: TestQuarry, schema: string, table: string): Promise<() => Promise<void>> {
  const name = `${quoteIdentifier(schema)}.${quoteIdentifier(table)}`;
  const aside = `${table}_set_aside`;
  const run = async (sql: string): Promise<void> => {
    await quarry.jobsIdle(); // after every sync already started, so none of them loads into the blocked table
    await quarry.ctx.writer.write(({ transaction }) => transaction(async (connection) => { await connection.run(sql); }), { signal: AbortSignal.timeout(10_000) });
  };
  await run(`ALTER TABLE ${name} RENAME TO ${quoteIdentifier(aside)}; CREATE VIEW ${name} AS SELECT * FROM ${quoteIdentifier(schema)}.${quoteIdentifier(aside)}`);
  return () => run(`DROP VIEW ${name}; ALTER TABLE ${quoteIdentifier(schema)}.${quoteIdentifier(aside)} RENAME TO ${quoteIdentifier(table)}`);
}
