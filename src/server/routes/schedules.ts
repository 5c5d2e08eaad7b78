import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { SCHEDULE_OUTCOMES } from '../../store/index.ts';
import { requireActor, requireAction } from '../plugins/index.ts';

const Timestamp = z.string().describe('ISO 8601 UTC timestamp');

const Schedule = z.object({
  name: z.string(),
  kind: z.enum(['sync', 'backup']).describe('`sync`: syncs sources, maybe then the models; `backup`: backs the project up into a bucket'),
  cron: z.string().describe('five-field cron expression, read in `timezone`'),
  timezone: z.string().describe('IANA time zone'),
  enabled: z.boolean(),
  running: z.boolean(),
  next_run: Timestamp.nullable().describe('the next cron slot; null for a disabled schedule'),
  last_run: z.object({
    started_at: Timestamp,
    finished_at: Timestamp.nullable(),
    outcome: z.enum(SCHEDULE_OUTCOMES).describe('`skipped`: its slot came while the previous run was still going'),
  }).nullable(),
});

const NameParams = z.object({ name: z.string().min(1).max(63) });
const RunReply = z.object({ success: z.boolean(), message: z.string(), schedule: z.string(), started_at: Timestamp });

export const scheduleRoutes: FastifyPluginCallbackZod<{ ctx: AppContext }> = (app, { ctx }, done) => {
  app.get('/api/schedules', {
    preHandler: requireAction('data.read'),
    schema: { tags: ['schedules'], summary: 'The project\'s schedules with their next and last runs', response: { 200: z.array(Schedule) } },
  }, async () => (await ctx.schedules.list()).map((schedule) => ({
    name: schedule.name,
    kind: schedule.kind,
    cron: schedule.cron,
    timezone: schedule.timezone,
    enabled: schedule.enabled,
    running: schedule.running,
    next_run: schedule.nextRun,
    last_run: schedule.lastRun === null ? null : {
      started_at: schedule.lastRun.startedAt, finished_at: schedule.lastRun.finishedAt, outcome: schedule.lastRun.outcome,
    },
  })));

  app.post('/api/schedules/:name/run', {
    preHandler: requireAction('schedules.run'),
    schema: { tags: ['schedules'], summary: 'Run a schedule now (409 schedule_in_progress while it runs)', params: NameParams, response: { 200: RunReply } },
  }, async (request) => {
    const { name } = request.params;
    const run = await ctx.schedules.runNow(name, requireActor(request).email);
    return { success: true, message: `Schedule ${name} started`, schedule: name, started_at: run.startedAt };
  });

  done();
};
