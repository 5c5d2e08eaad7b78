import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { JOB_STATUSES, MODEL_RUN_STATUSES, TEST_STATUSES } from '../../store/index.ts';
import { DBT_COMMANDS } from '../../transform/index.ts';
import { requireActor, requireAction } from '../plugins/index.ts';

const Model = z.object({
  name: z.string(),
  description: z.string(),
  database: z.string(),
  schema: z.string().describe('the layer: staging or marts'),
  depends_on: z.array(z.string()).describe('names of upstream models'),
  materialization: z.string().describe('view or table'),
  status: z.enum(['success', 'error', 'skipped', 'not_run', 'running']).describe('from the latest run that included the model'),
  tests: z.object({
    passed: z.number().int(),
    failed: z.number().int().describe('failed, or could not run'),
    warned: z.number().int(),
    last_run_at: z.string().nullable().describe('when one of its tests last ran'),
  }).describe("the model's data tests by their latest outcome"),
});

const DataTest = z.object({
  name: z.string(),
  model: z.string().nullable().describe('the model, seed or snapshot it checks (null for a singular test over several)'),
  column: z.string().nullable(),
  type: z.string().describe('unique, not_null, accepted_values, relationships... or singular'),
  status: z.enum(['pass', 'fail', 'warn', 'error', 'skipped', 'not_run']),
  severity: z.enum(['error', 'warn']).nullable().describe('from its latest run'),
  failures: z.number().int().nullable().describe('rows that failed it in its latest run'),
  message: z.string().nullable(),
  compiled_sql: z.string().nullable().describe("the first lines of the SQL dbt ran"),
  failing_rows: z.array(z.record(z.string(), z.unknown())).describe('up to 20 of the rows that failed it'),
  last_run_at: z.string().nullable(),
});

const ModelParams = z.object({ model_name: z.string().regex(/^[A-Za-z0-9_]{1,200}$/, 'expected a model name') });
const RunQuery = z.object({
  cascade: z.enum(['true', 'false', '1', '0']).default('true').transform((value) => value === 'true' || value === '1'),
});
const RunReply = z.object({ success: z.boolean(), message: z.string(), model_name: z.string(), started_at: z.string() });

const RunRequest = z.strictObject({
  command: z.enum(DBT_COMMANDS).default('build').describe('build: models, their tests, seeds and snapshots; test: only the tests; seed: only the seeds'),
  select: z.string().max(4_000).optional().describe('a dbt selector: node names, method:value (tag:nightly), with + @ * and , operators; every node when left out'),
  model: ModelParams.shape.model_name.optional().describe('instead of select: this model, as POST /api/transform/models/{model_name}/run runs it'),
  cascade: z.boolean().default(true).describe('with model: also run every model downstream of it'),
}).refine((body) => body.model === undefined || (body.select === undefined && body.command === 'build'), {
  message: 'model runs one model (and what is downstream of it) with its tests: leave out select and command', path: ['model'],
});
const QueuedRun = z.object({ job_id: z.number().int(), target: z.string(), status: z.enum(JOB_STATUSES), created_at: z.string() });
const RunParams = z.object({ job_id: z.string().regex(/^[1-9][0-9]{0,14}$/, 'expected a job id').transform(Number) });
const RunReportReply = z.object({
  job_id: z.number().int(),
  target: z.string(),
  status: z.enum(JOB_STATUSES),
  error: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  models: z.array(z.object({
    name: z.string(), status: z.enum(MODEL_RUN_STATUSES), duration_seconds: z.number().nullable(), error: z.string().nullable(),
  })).describe('models, seeds and snapshots, in the order they started; running while dbt builds them'),
  tests: z.array(z.object({
    name: z.string(), model: z.string().nullable(), status: z.enum(TEST_STATUSES), severity: z.enum(['error', 'warn']),
    failures: z.number().int().nullable(), message: z.string().nullable(),
  })).describe('recorded when the run ends'),
});

export const transformRoutes: FastifyPluginCallbackZod<{ ctx: AppContext }> = (app, { ctx }, done) => {
  app.get('/api/transform/models', {
    preHandler: requireAction('data.read'),
    schema: { tags: ['transform'], summary: 'dbt models from the last parsed manifest, with their latest status', response: { 200: z.object({ models: z.array(Model) }) } },
  }, async () => ({
    models: (await ctx.transform.listModels()).map((model) => ({
      name: model.name,
      description: model.description,
      database: model.database,
      schema: model.schema,
      depends_on: [...model.dependsOn],
      materialization: model.materialization,
      status: model.status,
      tests: { passed: model.tests.passed, failed: model.tests.failed, warned: model.tests.warned, last_run_at: model.tests.lastRunAt },
    })),
  }));

  app.get('/api/transform/tests', {
    preHandler: requireAction('data.read'),
    schema: {
      tags: ['transform'], summary: 'Every data test of the last parsed manifest with its latest outcome and up to 20 failing rows',
      response: { 200: z.object({ tests: z.array(DataTest) }) },
    },
  }, async () => ({
    tests: (await ctx.transform.listTests()).map((test) => ({
      name: test.name, model: test.model, column: test.column, type: test.type, status: test.status, severity: test.severity,
      failures: test.failures, message: test.message, compiled_sql: test.compiledSql, failing_rows: [...test.failingRows], last_run_at: test.lastRunAt,
    })),
  }));

  app.post('/api/transform/models/:model_name/run', {
    preHandler: requireAction('models.run'),
    schema: {
      tags: ['transform'], summary: 'Run a model, and with cascade (the default) every model downstream of it (409 while a run touching it is active)',
      params: ModelParams, querystring: RunQuery, response: { 200: RunReply },
    },
  }, async (request) => {
    const { model_name: model } = request.params;
    const { cascade } = request.query;
    const job = await ctx.transform.startRun(model, { cascade, requestedBy: requireActor(request).email });
    return { success: true, message: `Run of ${model}${cascade ? ' and its downstream models' : ''} started`, model_name: model, started_at: job.createdAt };
  });

  app.post('/api/transform/runs', {
    preHandler: requireAction('models.run'),
    schema: {
      tags: ['transform'], summary: 'Queue dbt build, test or seed of a selector, or a run of one model (409 while an overlapping run is queued or running); follow it at GET /api/transform/runs/{job_id}',
      body: RunRequest, response: { 200: QueuedRun },
    },
  }, async (request) => {
    const { command, select, model, cascade } = request.body;
    const requestedBy = requireActor(request).email;
    const job = model === undefined
      ? (await ctx.transform.startBuild(select ?? '', { command, requestedBy })).job
      : await ctx.transform.startRun(model, { cascade, requestedBy });
    return { job_id: job.id, target: job.target, status: job.status, created_at: job.createdAt };
  });

  app.get('/api/transform/runs/:job_id', {
    preHandler: requireAction('data.read'),
    schema: {
      tags: ['transform'], summary: "A model run's status and the outcome of each model and test it has recorded so far",
      params: RunParams, response: { 200: RunReportReply },
    },
  }, async (request) => {
    const { job, models, tests } = await ctx.transform.runReport(request.params.job_id);
    return {
      job_id: job.id, target: job.target, status: job.status, error: job.error, created_at: job.createdAt, started_at: job.startedAt, finished_at: job.finishedAt,
      models: models.map((run) => ({ name: run.model, status: run.status, duration_seconds: run.durationSeconds, error: run.error })),
      tests: tests.map((test) => ({ name: test.name, model: test.model, status: test.status, severity: test.severity, failures: test.failures, message: test.message })),
    };
  });

  done();
};
