import type { AppContext } from '../context.ts';
import type { JobRecord } from '../store/index.ts';
import type { DbtCommand, NodeProgress } from '../transform/index.ts';
import { CliError } from './cli-error.ts';
import { profilesLeftLine } from './profiles-left.ts';
import { textTable } from './text-table.ts';
import { withAlertingProject } from './with-project.ts';

/** `model.quarry.orders` → `model orders`; a test's id ends in a hash after its name. */
function describeNode(uniqueId: string): { kind: string; name: string } {
  const parts = uniqueId.split('.');
  return { kind: parts[0] ?? '', name: parts[2] ?? uniqueId };
}

/** One line per node as dbt finishes it: `pass     test      unique_orders_id`. */
function progressLine(progress: NodeProgress): string | undefined {
  if (progress.event !== 'finished') return undefined;
  const { kind, name } = describeNode(progress.uniqueId);
  return `${(progress.status ?? 'done').padEnd(8)} ${kind.padEnd(9)} ${name}`;
}

/**
 * What a model run did: a table of the models, seeds, snapshots and tests it ran, and a summary line. `onlyProblems`
 * keeps to those that did not succeed or pass, for a command that has already printed a line for each node.
 */
export async function buildReport(ctx: AppContext, job: JobRecord, options: { onlyProblems?: boolean } = {}): Promise<string> {
  const models = await ctx.store.modelRuns.forJob(job.id);
  const tests = await ctx.store.testResults.forJob(job.id);
  const shown = (status: string): boolean => options.onlyProblems !== true || (status !== 'success' && status !== 'pass');
  const rows = [
    ...models.filter((run) => shown(run.status))
      .map((run) => [run.model, 'model', run.status, run.error ?? (run.durationSeconds === null ? '' : `${run.durationSeconds.toFixed(2)} s`)]),
    ...tests.filter((test) => shown(test.status)).map((test) => [
      test.name, 'test', test.status,
      test.status === 'fail' || test.status === 'warn' ? `${String(test.failures ?? 0)} failing rows on ${test.model ?? 'several models'}` : test.status === 'error' ? test.message ?? '' : '',
    ]),
  ];
  const count = (status: string): number => tests.filter((test) => test.status === status).length;
  const summary = `${String(models.filter((run) => run.status === 'success').length)} of ${String(models.length)} models, seeds and snapshots built; tests: `
    + `${String(count('pass'))} passed, ${String(count('fail') + count('error'))} failed, ${String(count('warn'))} warned, ${String(count('skipped'))} skipped`;
  return rows.length === 0 ? `\n${summary}` : `\n${textTable(['NODE', 'TYPE', 'STATUS', 'DETAIL'], rows)}\n\n${summary}`;
}

/**
 * The error of a run that did not succeed, after printing its report when it ran anything (a run refused before
 * dbt started, by a busy warehouse, has nothing to show but the error).
 */
export async function failedRun(ctx: AppContext, job: JobRecord, what: string, report: { onlyProblems?: boolean } = {}): Promise<CliError> {
  if ((await ctx.store.modelRuns.forJob(job.id)).length > 0 || (await ctx.store.testResults.forJob(job.id)).length > 0) console.log(await buildReport(ctx, job, report));
  return new CliError(`${what} failed: ${job.error ?? job.status}`);
}

/**
 * `quarry build [SELECTOR]` and `quarry test [SELECTOR]`: dbt build (models, tests, seeds, snapshots) or dbt test
 * of a dbt selector (in this process, or a deployment's worker), a line per node as it finishes, then the details of those that failed, warned
 * or were skipped, and a summary; fails (exit code 1) when a model or a test with severity error fails.
 */
export async function buildModels(
  project: string, selector: string | undefined, command: DbtCommand, env: NodeJS.ProcessEnv,
): Promise<string> {
  return withAlertingProject(project, env, async (ctx) => {
    // A deployment's worker runs the build, not this process: then no line is printed as it goes, and the report has every node.
    let linesPrinted = false;
    const job = await ctx.transform.buildAndWait(selector, {
      command, requestedBy: 'cli',
      onNode: (progress) => {
        const line = progressLine(progress);
        if (line === undefined) return;
        console.log(line);
        linesPrinted = true;
      },
    });
    if (job.status !== 'success') throw await failedRun(ctx, job, `The ${command}`, { onlyProblems: linesPrinted });
    const profiles = await profilesLeftLine(ctx);
    return `${await buildReport(ctx, job, { onlyProblems: linesPrinted })}${profiles === undefined ? '' : `\n${profiles}`}`;
  });
}
