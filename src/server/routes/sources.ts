import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { shownSourceConfig } from '../../config/index.ts';
import type { SourceSummary } from '../../jobs/index.ts';
import { LOG_LEVELS } from '../../store/index.ts';
import { requireActor, requireAction } from '../plugins/index.ts';

const Timestamp = z.string().describe('ISO 8601 UTC timestamp');

const Table = z.object({ name: z.string(), row_count: z.number().int(), schema: z.string() });

const Source = z.object({
  name: z.string(),
  type: z.string(),
  enabled: z.boolean(),
  last_sync: Timestamp.nullable().describe('end of the last successful sync; null before the first'),
  row_count: z.number().int(),
  status: z.enum(['synced', 'syncing', 'failed', 'empty', 'not_synced', 'unknown']),
  freshness: z.object({ last_update: Timestamp.nullable(), days_old: z.number().int().nullable() }),
  tables: z.array(Table),
});

const HistoryEntry = z.object({
  timestamp: Timestamp,
  status: z.enum(['success', 'failed', 'interrupted']).or(z.string()),
  duration_seconds: z.number(),
  rows_processed: z.number().int(),
  full_refresh: z.boolean(),
  files_failed: z.number().int().describe('files DuckDB could not read, skipped by a sync that otherwise succeeded (see the log)'),
});

const Details = z.object({
  name: z.string(),
  config: z.record(z.string(), z.unknown()),
  history: z.array(HistoryEntry),
  row_count: z.number().int(),
  tables: z.array(Table),
});

const LogEntry = z.object({ timestamp: Timestamp, level: z.enum(LOG_LEVELS), message: z.string() });

const NameParams = z.object({ source_name: z.string().min(1).max(63) });
const SyncBody = z.object({ full_refresh: z.boolean().default(false) }).strict().nullish();
const SyncReply = z.object({ success: z.boolean(), message: z.string(), source_name: z.string(), started_at: Timestamp });

function presentTables(summary: SourceSummary): z.infer<typeof Table>[] {
  return summary.tables.map((table) => ({ name: table.name, row_count: table.rowCount, schema: table.schema }));
}

export const sourceRoutes: FastifyPluginCallbackZod<{ ctx: AppContext }> = (app, { ctx }, done) => {
  const read = requireAction('data.read');
  app.get('/api/sources', {
    preHandler: read,
    schema: { tags: ['sources'], summary: 'All sources with status, freshness and tables', response: { 200: z.array(Source) } },
  }, async () => ctx.sourceReports.summaries().map((summary) => ({
    name: summary.name,
    type: summary.type,
    enabled: summary.enabled,
    last_sync: summary.lastSync,
    row_count: summary.rowCount,
    status: summary.status,
    freshness: { last_update: summary.freshness.lastUpdate, days_old: summary.freshness.daysOld },
    tables: presentTables(summary),
  })));

  app.get('/api/sources/:source_name/details', {
    preHandler: read,
    schema: { tags: ['sources'], summary: 'A source\'s configuration, sync history and tables', params: NameParams, response: { 200: Details } },
  }, async (request) => {
    const source = ctx.sourceReports.source(request.params.source_name);
    const summary = ctx.sourceReports.summary(source.name);
    return {
      name: source.name,
      // Sections name environment variables, never their values (a literal that looks secret is refused at load).
      config: { ...shownSourceConfig(source) },
      history: ctx.sourceReports.history(source.name, 100).map((entry) => ({
        timestamp: entry.timestamp,
        status: entry.status,
        duration_seconds: entry.durationSeconds,
        rows_processed: entry.rowsProcessed,
        full_refresh: entry.fullRefresh,
        files_failed: entry.filesFailed,
      })),
      row_count: summary.rowCount,
      tables: presentTables(summary),
    };
  });

  app.post('/api/sources/:source_name/sync', {
    preHandler: requireAction('sources.sync'),
    schema: { tags: ['sources'], summary: 'Start a sync (409 while one is queued or running)', params: NameParams, body: SyncBody, response: { 200: SyncReply } },
  }, async (request) => {
    const { source_name: name } = request.params;
    const fullRefresh = request.body?.full_refresh ?? false;
    const job = ctx.jobs.startSync(name, { fullRefresh, requestedBy: requireActor(request).email });
    return { success: true, message: `${fullRefresh ? 'Full refresh' : 'Sync'} of ${name} started`, source_name: name, started_at: job.createdAt };
  });

  app.get('/api/sources/:source_name/logs', {
    preHandler: read,
    schema: {
      tags: ['sources'], summary: 'The source\'s log, newest first', params: NameParams,
      querystring: z.object({ limit: z.coerce.number().int().min(1).max(10_000).default(100) }),
      response: { 200: z.array(LogEntry) },
    },
  }, async (request) => {
    return ctx.sourceReports.logs(request.params.source_name, request.query.limit).map((entry) => ({ timestamp: entry.timestamp, level: entry.level, message: entry.message }));
  });

  app.get('/api/logs', {
    preHandler: read,
    schema: {
      tags: ['logs'], summary: 'The platform activity log, newest first',
      querystring: z.object({ limit: z.coerce.number().int().min(1).max(100_000).default(1000) }),
      response: { 200: z.array(LogEntry) },
    },
  }, async (request) => ctx.sourceReports.activity(request.query.limit).map((entry) => ({
    timestamp: entry.timestamp, level: entry.level, message: entry.source === null ? entry.message : `[${entry.source}] ${entry.message}`,
  })));

  done();
};
