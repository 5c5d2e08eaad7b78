import { pipeline, Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { spreadsheetSafeRows, spreadsheetSafeText } from '../../catalog/index.ts';
import type { AppContext } from '../../context.ts';
import { requireActor, requireAction } from '../plugins/index.ts';

const QueryBody = z.object({
  sql: z.string().min(1).max(100_000).describe('one SELECT, WITH, SHOW, DESCRIBE or EXPLAIN statement'),
  limit: z.number().int().positive().optional().describe('rows wanted (default 1000); never more than limits.query_rows'),
});

const QueryReply = z.object({
  columns: z.array(z.object({ name: z.string(), type: z.string().describe("DuckDB's type name") })),
  rows: z.array(z.array(z.unknown())).describe('values as JSON: big integers, decimals, dates and times as strings'),
  row_count: z.number().int(),
  truncated: z.boolean().describe('true when the result had more rows than returned'),
  elapsed_ms: z.number().int(),
});

const DEFAULT_ROWS = 1000;

/** Whether the client asked for CSV (a download) rather than JSON. */
function wantsCsv(accept: string | undefined): boolean {
  return accept !== undefined && /\btext\/csv\b/i.test(accept) && !/\bapplication\/json\b/i.test(accept);
}

export const queryRoutes: FastifyPluginCallbackZod<{ ctx: AppContext }> = (app, { ctx }, done) => {
  app.post('/api/query', {
    preHandler: requireAction('data.read'),
    schema: {
      tags: ['query'],
      summary: 'Run one read-only SQL query on the warehouse (JSON, or CSV streamed with Accept: text/csv)',
      description: 'Only SELECT, WITH, SHOW, DESCRIBE and EXPLAIN; no files, settings or other databases (400 query_not_allowed). '
        + 'A DuckDB error is 400 query_failed; a query running past limits.query_seconds is interrupted, 400 query_timeout. '
        + 'At most limits.query_rows rows and 32 MB of JSON (a larger first row is 400 query_failed); CSV is streamed without the 32 MB cap '
        + 'and cut off when the time limit is up. Every query is recorded in the audit log.',
      body: QueryBody,
      response: {
        200: {
          description: 'The result: JSON, or CSV with a header row when the request accepts text/csv',
          content: { 'application/json': { schema: QueryReply }, 'text/csv': { schema: z.string() } },
        },
      },
    },
  }, async (request, reply) => {
    const actor = requireActor(request);
    const abort = new AbortController();
    // The response's close, not the request's: a request closes as soon as its body has been read.
    reply.raw.once('close', () => { if (!reply.raw.writableFinished) abort.abort(); });
    const query = {
      sql: request.body.sql,
      limit: request.body.limit ?? (wantsCsv(request.headers.accept) ? ctx.queries.maxRows : DEFAULT_ROWS),
      caller: { email: actor.email, ip: request.ip },
      signal: abort.signal,
    };
    if (!wantsCsv(request.headers.accept)) {
      const answer = await ctx.queries.run(query);
      return { columns: [...answer.columns], rows: answer.rows, row_count: answer.rows.length, truncated: answer.truncated, elapsed_ms: answer.elapsedMs };
    }
    return ctx.queries.stream(query, async (result) => {
      // Headers go out with the first batch, so an error before it is still a JSON 400.
      const batches = result.batches();
      const first = await batches.next();
      const columns = result.columns.map((column) => spreadsheetSafeText(column.name));
      const csv = stringify({ header: true, columns, cast: { object: (value) => JSON.stringify(value) } });
      const safe = spreadsheetSafeRows(result.columns);
      const rows = async function* () {
        if (first.done !== true) yield* first.value.map(safe);
        for await (const batch of batches) yield* batch.map(safe);
      };
      // pipeline, not pipe: a query that fails after the first rows (its time up) must end this response with the
      // error, where pipe would leave it unhandled and end the process.
      const body = pipeline(Readable.from(rows()), csv, () => undefined);
      void reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="query.csv"').send(body as unknown as string); // a stream: Fastify pipes it, unserialized
      // The reader stays lent until the last row is written, and no longer than the query's time: a client that
      // stops reading would otherwise hold it, and with the others every query, catalog page and health check.
      const cutOff = (): void => { reply.raw.destroy(); };
      result.timeUp.addEventListener('abort', cutOff);
      await finished(reply.raw).catch(() => undefined);
      result.timeUp.removeEventListener('abort', cutOff);
      return reply;
    });
  });
  done();
};
