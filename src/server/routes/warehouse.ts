import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { snapshotReport } from '../../jobs/index.ts';
import { requireActor, requireAction } from '../plugins/index.ts';

const Timestamp = z.string().describe('ISO 8601 UTC timestamp');

const Snapshot = z.object({
  id: z.number().int(),
  time: Timestamp,
  author: z.string().nullable().describe('`quarry` for snapshots a Quarry job labelled; null for dbt\'s and the lake\'s own'),
  message: z.string().nullable(),
  job: z.object({
    id: z.number().int(),
    kind: z.string().describe('`sync`, `run` (a model run: its span of snapshots), `restore` or `maintain`'),
    target: z.string().describe('the source of a sync or restore, the selection of a model run'),
  }).nullable(),
  tables_changed: z.array(z.string()).describe('`schema.table`, every table the snapshot created, wrote, altered or dropped'),
});

const SnapshotsQuery = z.object({ limit: z.coerce.number().int().min(1).max(1000).default(50) });
const NameParams = z.object({ source_name: z.string().min(1).max(63) });
const RestoreBody = z.strictObject({ before_sync: z.number().int().positive().describe('the id of the sync job to go back before') });
const RestoreReply = z.object({
  success: z.boolean(), message: z.string(), source_name: z.string(),
  job_id: z.number().int().describe('the restore job; it is in the source\'s logs and emits `warehouse_restored`'),
  started_at: Timestamp,
});

export const warehouseRoutes: FastifyPluginCallbackZod<{ ctx: AppContext }> = (app, { ctx }, done) => {
  app.get('/api/warehouse/snapshots', {
    preHandler: requireAction('data.read'),
    schema: { tags: ['warehouse'], summary: 'The lake\'s latest snapshots, newest first, with the job that made each', querystring: SnapshotsQuery, response: { 200: z.array(Snapshot) } },
  }, async (request) => (await snapshotReport(ctx.readers, ctx.store, request.query.limit)).map((snapshot) => ({
    id: snapshot.id, time: snapshot.time, author: snapshot.author, message: snapshot.message, job: snapshot.job, tables_changed: [...snapshot.tablesChanged],
  })));

  app.post('/api/sources/:source_name/restore', {
    preHandler: requireAction('sources.sync'),
    schema: {
      tags: ['sources'],
      summary: 'Put the source\'s raw tables back as they were just before one of its syncs, as a new snapshot (409 while a sync or restore of it is active, or when the snapshot has expired)',
      params: NameParams, body: RestoreBody, response: { 200: RestoreReply },
    },
  }, async (request) => {
    const { source_name: name } = request.params;
    const job = await ctx.jobs.startRestore(name, { beforeSync: request.body.before_sync, requestedBy: requireActor(request).email });
    return { success: true, message: `Restore of ${name} to before the sync ${String(request.body.before_sync)} started`, source_name: name, job_id: job.id, started_at: job.createdAt };
  });

  done();
};
