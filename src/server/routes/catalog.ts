import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { TableSummary } from '../../catalog/index.ts';
import type { AppContext } from '../../context.ts';
import { requireAction } from '../plugins/index.ts';

const Layer = z.enum(['raw', 'staging', 'marts']);

const Table = z.object({
  schema: z.string(),
  name: z.string(),
  layer: Layer,
  kind: z.enum(['table', 'view']),
  row_count: z.number().int(),
  column_count: z.number().int().nullable(),
  source: z.string().nullable().describe('the source a raw table is loaded from'),
  model: z.string().nullable().describe('the model that builds a staging or marts table'),
  description: z.string().describe("the model's description"),
  updated_at: z.string().describe("when the lake's snapshot that last changed the table was committed (by this or another Quarry sharing the lake)"),
  profiled_at: z.string().nullable(),
});

const Column = z.object({
  name: z.string(),
  type: z.string(),
  null_fraction: z.number(),
  distinct_count: z.number().int().describe('distinct non-null values: counted when distinct_exact, else estimated'),
  distinct_exact: z.boolean().describe("false for a table too large to count in the profile's time: distinct_count is then DuckDB's HyperLogLog estimate (approx_unique)"),
  min: z.string().nullable(),
  max: z.string().nullable(),
  top_values: z.array(z.object({ value: z.string().nullable(), count: z.number().int() })).describe('for text columns of at most 20 distinct values'),
});

const TableDetail = Table.extend({
  columns: z.array(Column).describe('computed after the job that last changed the table'),
  sample: z.object({
    columns: z.array(z.object({ name: z.string(), type: z.string() })),
    rows: z.array(z.array(z.unknown())).describe('the first 50 rows'),
  }),
  upstream: z.array(z.string()).describe('models this one is built from'),
  downstream: z.array(z.string()).describe('models built from this table'),
});

const Hit = z.object({
  schema: z.string(), name: z.string(), layer: Layer,
  match: z.enum(['table', 'column', 'description']), column: z.string().nullable(),
});

const identifier = z.string().min(1).max(200);
const TableParams = z.object({ schema: identifier, table: identifier });
const SearchQuery = z.object({ q: z.string().max(200).default('') });

function tableJson(table: TableSummary): z.infer<typeof Table> {
  return {
    schema: table.schema, name: table.name, layer: table.layer, kind: table.kind, row_count: table.rowCount,
    column_count: table.columnCount ?? null, source: table.source, model: table.model, description: table.description,
    updated_at: table.updatedAt, profiled_at: table.profiledAt ?? null,
  };
}

export const catalogRoutes: FastifyPluginCallbackZod<{ ctx: AppContext }> = (app, { ctx }, done) => {
  app.get('/api/catalog/tables', {
    preHandler: requireAction('data.read'),
    schema: { tags: ['catalog'], summary: 'Every table and view of the raw, staging and marts layers', response: { 200: z.object({ tables: z.array(Table) }) } },
  }, async () => ({ tables: (await ctx.catalog.tables()).map(tableJson) }));

  app.get('/api/catalog/tables/:schema/:table', {
    preHandler: requireAction('data.read'),
    schema: {
      tags: ['catalog'], summary: "A table's columns with their profiles, its first 50 rows and its lineage (404 table_not_found)",
      params: TableParams, response: { 200: TableDetail },
    },
  }, async (request) => {
    const table = await ctx.catalog.table(request.params.schema, request.params.table);
    return {
      ...tableJson(table),
      columns: table.columns.map((column) => ({
        name: column.name, type: column.type, null_fraction: column.nullFraction, distinct_count: column.distinctCount,
        distinct_exact: column.distinctExact, min: column.min, max: column.max, top_values: column.topValues.map((top) => ({ ...top })),
      })),
      sample: { columns: [...table.sample.columns], rows: table.sample.rows },
      upstream: [...table.upstream],
      downstream: [...table.downstream],
    };
  });

  app.get('/api/catalog/search', {
    preHandler: requireAction('data.read'),
    schema: {
      tags: ['catalog'], summary: 'Tables whose name, a column name or whose model description contains q (case-insensitive)',
      querystring: SearchQuery, response: { 200: z.object({ results: z.array(Hit) }) },
    },
  }, async (request) => ({ results: await ctx.catalog.search(request.query.q) }));
  done();
};
