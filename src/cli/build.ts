import type { DbtCommand, NodeProgress } from '../transform/index.ts';
import { profilesLeftLine } from './profiles-left.ts';
import { quarryServiceFor } from './quarry-service.ts';
import { runInService } from './run-in-service.ts';
import { failedRun, outcomesOf, runReport } from './run-report.ts';
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
 * `quarry build [SELECTOR]` and `quarry test [SELECTOR]`: dbt build (models, tests, seeds, snapshots) or dbt test
 * of a dbt selector, then the details of those that failed, warned or were skipped, and a summary; fails (exit
 * code 1) when a model or a test with severity error fails. Run by the running Quarry when QUARRY_API_KEY lets
 * this command reach it (the whole report at the end), else in this process (a line per node as it finishes) or
 * by a deployment's worker (the whole report).
 */
export async function buildModels(project: string, selector: string | undefined, command: DbtCommand, env: NodeJS.ProcessEnv): Promise<string> {
  const service = quarryServiceFor(project, env);
  if (service !== undefined) {
    const run = await runInService(service, { command, select: selector ?? '' }, `The ${command}`);
    if (run.status !== 'success') throw failedRun(run, `The ${command}`);
    return runReport(run);
  }
  return withAlertingProject(project, env, async (ctx) => {
    let linesPrinted = false;
    const job = await ctx.transform.buildAndWait(selector ?? '', {
      command, requestedBy: 'cli',
      onNode: (progress) => {
        const line = progressLine(progress);
        if (line === undefined) return;
        console.log(line);
        linesPrinted = true;
      },
    });
    const run = outcomesOf(await ctx.transform.runReport(job.id));
    if (run.status !== 'success') throw failedRun(run, `The ${command}`, { onlyProblems: linesPrinted });
    const profiles = await profilesLeftLine(ctx);
    return `${runReport(run, { onlyProblems: linesPrinted })}${profiles === undefined ? '' : `\n${profiles}`}`;
  });
}
