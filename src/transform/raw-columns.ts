import { LAKE_ALIAS, quoteIdentifier, type WarehouseReaders } from '../warehouse/index.ts';

/** A raw table's column and whether any of its rows holds a null there. */
export interface RawColumn {
  readonly name: string;
  /** True too while the table is empty: nothing says the column is never null. */
  readonly hasNulls: boolean;
}

/** The columns of each table, in table order, with their nulls, read through a pooled reader of one snapshot of the lake. */
export async function readColumns(readers: WarehouseReaders, tables: readonly { schema: string; name: string }[]): Promise<Map<string, RawColumn[]>> {
  const columns = new Map<string, RawColumn[]>();
  if (tables.length === 0) return columns;
  await readers.withReader(async (connection) => {
    for (const table of tables) {
      const reader = await connection.runAndReadAll(
        'SELECT column_name FROM information_schema.columns WHERE table_catalog = $catalog AND table_schema = $schema AND table_name = $name ORDER BY ordinal_position',
        { catalog: LAKE_ALIAS, schema: table.schema, name: table.name },
      );
      const names = reader.getRowObjects().map((row) => String(row.column_name));
      if (names.length === 0) {
        columns.set(`${table.schema}.${table.name}`, []);
        continue;
      }
      const nulls = await connection.runAndReadAll(`SELECT ${names.map((name, index) => `coalesce(bool_or(${quoteIdentifier(name)} IS NULL), true) AS c${String(index)}`).join(', ')}
        FROM ${quoteIdentifier(table.schema)}.${quoteIdentifier(table.name)}`);
      const row = nulls.getRowObjects()[0] ?? {};
      columns.set(`${table.schema}.${table.name}`, names.map((name, index) => ({ name, hasNulls: row[`c${String(index)}`] !== false })));
    }
  });
  return columns;
}
