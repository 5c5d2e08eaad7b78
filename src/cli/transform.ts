import path from 'node:path';
import { withAlertingProject, withProject } from './with-project.ts';
import type { LogFormat } from '../logger.ts';
import { ProgressLine } from './progress-line.ts';
import { quarryServiceFor } from './quarry-service.ts';
import { runInService } from './run-in-service.ts';
import { failedRun, outcomesOf, runReport } from './run-report.ts';

/**
 * `quarry run <model>`: runs it (and with cascade its downstream models) and reports each model; on a terminal a
 * line redrawn in place says which model dbt builds now. The running Quarry runs it when QUARRY_API_KEY lets this
 * command reach it, else this process does.
 */
export async function runModel(
  project: string, model: string, options: { cascade: boolean; logFormat?: LogFormat | undefined }, env: NodeJS.ProcessEnv,
): Promise<string> {
  const service = quarryServiceFor(project, env);
  if (service !== undefined) {
    const run = await runInService(service, { model, cascade: options.cascade }, `Running ${model}`);
    if (run.status !== 'success') throw failedRun(run, `The run of ${model}`);
    return runReport(run);
  }
  return withAlertingProject(project, env, async (ctx) => {
    const progress = new ProgressLine();
    progress.set(`Running ${model}`);
    let started = 0;
    const stopProgress = ctx.events.subscribe((event) => {
      if (event.type !== 'transform_run_started') return;
      started += 1;
      progress.set(`Running ${model} · building ${event.model} (model ${String(started)})`);
    });
    const job = await ctx.transform.runAndWait(model, { cascade: options.cascade, requestedBy: 'cli' })
      .finally(() => { stopProgress(); progress.stop(); });
    const run = outcomesOf(await ctx.transform.runReport(job.id));
    if (run.status !== 'success') throw failedRun(run, `The run of ${model}`);
    return runReport(run);
  }, options.logFormat);
}

/** `quarry models`: every model with its layer, materialization, latest status and upstream models. */
export async function listModels(project: string, env: NodeJS.ProcessEnv): Promise<string> {
  return withProject(project, env, async (ctx) => {
    const models = await ctx.transform.loadModels();
    if (models.length === 0) return `No models yet: add SQL files under ${path.join(ctx.paths.transformDir, 'models')}`;
    const header = ['MODEL'.padEnd(32), 'LAYER'.padEnd(8), 'TYPE'.padEnd(6), 'STATUS'.padEnd(8), 'DEPENDS ON'].join(' ');
    return [header, ...models.map((model) => [
      model.name.padEnd(32), model.schema.padEnd(8), model.materialization.padEnd(6), model.status.padEnd(8), model.dependsOn.join(', '),
    ].join(' ').trimEnd())].join('\n');
  });
}

/** `quarry transform docs`: regenerates the docs site (lineage, columns) and says where it is served. */
export async function generateTransformDocs(project: string, env: NodeJS.ProcessEnv): Promise<string> {
  return withProject(project, env, async (ctx) => {
    await ctx.transform.generateDocs();
    const host = ctx.config.web.host.includes(':') ? `[${ctx.config.web.host}]` : ctx.config.web.host;
    const base = ctx.config.web.public_url ?? `http://${host}:${String(ctx.config.web.port)}`;
    return `Docs generated in ${path.join(ctx.paths.transformDir, 'target')}\nServed by quarry start at ${base.replace(/\/$/, '')}/transform-docs/`;
  });
}
