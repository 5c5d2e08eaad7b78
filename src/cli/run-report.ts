import type { JobStatus, ModelRunRecord, TestResultRecord } from '../store/index.ts';
import type { RunReport } from '../transform/index.ts';
import { CliError } from './cli-error.ts';
import { textTable } from './text-table.ts';

/** What a model run recorded, whether read from the store or from the running Quarry's API. */
export interface RunOutcomes {
  readonly status: JobStatus;
  readonly error: string | null;
  readonly models: readonly Pick<ModelRunRecord, 'model' | 'status' | 'durationSeconds' | 'error'>[];
  readonly tests: readonly Pick<TestResultRecord, 'name' | 'model' | 'status' | 'failures' | 'message'>[];
}

/** A run as this process's store has it. */
export function outcomesOf(report: RunReport): RunOutcomes {
  return { ...report, status: report.job.status, error: report.job.error };
}

/**
 * What a model run did: a table of the models, seeds, snapshots and tests it ran, and a summary line. `onlyProblems`
 * keeps to those that did not succeed or pass, for a command that has already printed a line for each node.
 */
export function runReport(run: RunOutcomes, options: { onlyProblems?: boolean } = {}): string {
  const { models, tests } = run;
  const shown = (status: string): boolean => options.onlyProblems !== true || (status !== 'success' && status !== 'pass');
  const rows = [
    ...models.filter((model) => shown(model.status))
      .map((model) => [model.model, 'model', model.status, model.error ?? (model.durationSeconds === null ? '' : `${model.durationSeconds.toFixed(2)} s`)]),
    ...tests.filter((test) => shown(test.status)).map((test) => [
      test.name, 'test', test.status,
      test.status === 'fail' || test.status === 'warn' ? `${String(test.failures ?? 0)} failing rows on ${test.model ?? 'several models'}` : test.status === 'error' ? test.message ?? '' : '',
    ]),
  ];
  const count = (status: string): number => tests.filter((test) => test.status === status).length;
  const summary = `${String(models.filter((model) => model.status === 'success').length)} of ${String(models.length)} models, seeds and snapshots built; tests: `
    + `${String(count('pass'))} passed, ${String(count('fail') + count('error'))} failed, ${String(count('warn'))} warned, ${String(count('skipped'))} skipped`;
  return rows.length === 0 ? `\n${summary}` : `\n${textTable(['NODE', 'TYPE', 'STATUS', 'DETAIL'], rows)}\n\n${summary}`;
}

/**
 * The error of a run that did not succeed, after printing its report when it ran anything (a run refused before
 * dbt started, by a busy warehouse, has nothing to show but the error).
 */
export function failedRun(run: RunOutcomes, what: string, report: { onlyProblems?: boolean } = {}): CliError {
  if (run.models.length > 0 || run.tests.length > 0) console.log(runReport(run, report));
  return new CliError(`${what} failed: ${run.error ?? run.status}`);
}
