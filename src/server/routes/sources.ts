import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { ERROR_CODES, type ErrorCode } from '../../errors.ts';
import { shownSourceConfig } from '../../sources/config/index.ts';
import { NotAnObjectSourceError, sourceObjectsPrefix } from '../../sources/index.ts';
import { startAllSyncs, type SourceSummary } from '../../jobs/index.ts';
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
  worker: z.string().nullable().describe('the process that ran it: a worker\'s name, or host:pid'),
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

const ObjectsReply = z.object({
  source_name: z.string(),
  prefix: z.string().describe('the bucket and folder the source reads: s3://, gs:// or az://'),
  objects: z.array(z.object({
    url: z.string(),
    size: z.number(),
    modified: z.string().describe('ISO 8601 UTC, as the listing said'),
    rows_loaded: z.number(),
    loaded_at: z.string().describe('ISO 8601 UTC: when its rows were loaded'),
    status: z.enum(['loaded', 'unreadable']),
    error: z.string().nullable().describe('why DuckDB cannot read it (it is tried again when it changes)'),
  })).describe('as the last sync listed them, in key order; nothing is listed anew'),
});
const SyncBody = z.object({
  full_refresh: z.boolean().default(false),
  since: z.iso.date().optional().describe('backfill: re-load from this day (YYYY-MM-DD) and merge, leaving other rows and the saved cursor as they are'),
  until: z.iso.date().optional().describe('backfill: the last day to re-load, default today; only with since'),
}).strict().refine((body) => body.until === undefined || body.since !== undefined, { path: ['until'], message: 'until needs since' }).nullish();
const SyncReply = z.object({ success: z.boolean(), message: z.string(), source_name: z.string(), started_at: Timestamp });
const SyncAllEntry = z.object({
  source_name: z.string(),
  status: z.enum(['started', 'already_running', 'skipped', 'failed']),
  started_at: Timestamp.nullable(),
  detail: z.string().nullable().describe('why the sync was not started'),
  code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]).nullable()
    .describe('the error code a sync of this source alone would answer (sync_in_progress, source_disabled, ...)'),
});
const SyncAllReply = z.object({
  success: z.boolean().describe('false when a sync could not be started for a reason other than already running or disabled'),
  started: z.number().int(),
  sources: z.array(SyncAllEntry),
});

function presentTables(summary: SourceSummary): z.infer<typeof Table>[] {
  return summary.tables.map((table) => ({ name: table.name, row_count: table.rowCount, schema: table.schema }));
}

export const sourceRoutes: FastifyPluginCallbackZod<{ ctx: AppContext }> = (app, { ctx }, done) => {
  const read = requireAction('data.read');
  app.get('/api/sources', {
    preHandler: read,
    schema: { tags: ['sources'], summary: 'All sources with status, freshness and tables', response: { 200: z.array(Source) } },
  }, async () => (await ctx.sourceReports.summaries()).map((summary) => ({
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
    const summary = await ctx.sourceReports.summary(source.name);
    return {
      name: source.name,
      // Sections name environment variables, never their values (a literal that looks secret is refused at load).
      config: { ...shownSourceConfig(source) },
      history: (await ctx.sourceReports.history(source.name, 100)).map((entry) => ({
        timestamp: entry.timestamp,
        status: entry.status,
        duration_seconds: entry.durationSeconds,
        rows_processed: entry.rowsProcessed,
        full_refresh: entry.fullRefresh,
        files_failed: entry.filesFailed,
        worker: entry.worker,
      })),
      row_count: summary.rowCount,
      tables: presentTables(summary),
    };
  });

  app.get('/api/sources/:source_name/objects', {
    preHandler: read,
    schema: { tags: ['sources'], summary: 'The objects a source over object storage read at its last sync (400 not_an_object_source for others)', params: NameParams, response: { 200: ObjectsReply } },
  }, async (request) => {
    const source = ctx.sourceReports.source(request.params.source_name);
    const prefix = sourceObjectsPrefix(source, ctx.paths.root);
    if (prefix === undefined) throw new NotAnObjectSourceError(source.name);
    const ledger = [...(await ctx.store.fileLedger.forSource(source.name)).values()].sort((a, b) => a.path.localeCompare(b.path));
    return {
      source_name: source.name,
      prefix,
      objects: ledger.map((entry) => ({
        url: entry.path, size: entry.size, modified: new Date(entry.mtimeMs).toISOString(), rows_loaded: entry.rows, loaded_at: entry.loadedAt,
        status: entry.error === null ? 'loaded' as const : 'unreadable' as const, error: entry.error,
      })),
    };
  });

  app.post('/api/sources/:source_name/sync', {
    preHandler: requireAction('sources.sync'),
    schema: { tags: ['sources'], summary: 'Start a sync (409 while one is queued or running)', params: NameParams, body: SyncBody, response: { 200: SyncReply } },
  }, async (request) => {
    const { source_name: name } = request.params;
    const fullRefresh = request.body?.full_refresh ?? false;
    const since = request.body?.since;
    const backfill = since === undefined ? undefined : { since, until: request.body?.until };
    const { job } = await ctx.jobs.startSync(name, { fullRefresh, requestedBy: requireActor(request).email, backfill });
    const what = backfill !== undefined ? `Backfill from ${since ?? ''}` : fullRefresh ? 'Full refresh' : 'Sync';
    return { success: true, message: `${what} of ${name} started`, source_name: name, started_at: job.createdAt };
  });

  app.post('/api/sync-all', {
    preHandler: requireAction('sources.sync'),
    schema: {
      tags: ['sources'], summary: 'Start a sync of every enabled source; each source says whether it started or why not',
      response: { 200: SyncAllReply },
    },
  }, async (request) => {
    const entries = await startAllSyncs(ctx.jobs, ctx.sources, requireActor(request).email);
    return {
      success: entries.every((entry) => entry.status !== 'failed'),
      started: entries.filter((entry) => entry.status === 'started').length,
      sources: entries.map((entry) => ({ source_name: entry.source, status: entry.status, started_at: entry.startedAt, detail: entry.detail, code: entry.code })),
    };
  });

  app.get('/api/sources/:source_name/logs', {
    preHandler: read,
    schema: {
      tags: ['sources'], summary: 'The source\'s log, newest first', params: NameParams,
      querystring: z.object({ limit: z.coerce.number().int().min(1).max(10_000).default(100) }),
      response: { 200: z.array(LogEntry) },
    },
  }, async (request) => {
    return (await ctx.sourceReports.logs(request.params.source_name, request.query.limit)).map((entry) => ({ timestamp: entry.timestamp, level: entry.level, message: entry.message }));
  });

  app.get('/api/logs', {
    preHandler: read,
    schema: {
      tags: ['logs'], summary: 'The platform activity log, newest first',
      querystring: z.object({ limit: z.coerce.number().int().min(1).max(100_000).default(1000) }),
      response: { 200: z.array(LogEntry) },
    },
  }, async (request) => (await ctx.sourceReports.activity(request.query.limit)).map((entry) => ({
    timestamp: entry.timestamp, level: entry.level, message: entry.source === null ? entry.message : `[${entry.source}] ${entry.message}`,
  })));

  done();
};
