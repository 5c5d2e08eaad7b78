import { setTimeout as delay } from 'node:timers/promises';
import type { JobStatus, ModelRunStatus, TestStatus } from '../store/index.ts';
import type { DbtCommand } from '../transform/index.ts';
import { ProgressLine } from './progress-line.ts';
import { callService, followServiceEvents, type QuarryService } from './quarry-service.ts';
import type { RunOutcomes } from './run-report.ts';

/** How often the run's record is read while it goes: its end reaches the command within this. */
const POLL_MS = 100;

/** What POST /api/transform/runs takes: dbt build, test or seed of a selector, or one model (and its downstream ones). */
export type ServiceRunRequest = { command: DbtCommand; select?: string } | { model: string; cascade: boolean };

interface RunReportAnswer {
  readonly status: JobStatus;
  readonly error: string | null;
  readonly models: { name: string; status: ModelRunStatus; duration_seconds: number | null; error: string | null }[];
  readonly tests: { name: string; model: string | null; status: TestStatus; failures: number | null; message: string | null }[];
}

/**
 * Queues a model run in the running Quarry (its dbt is warm, its graph parsed) and follows it to its end; on a
 * terminal a line redrawn in place names the model dbt builds now. A command stopped meanwhile leaves the run going.
 */
export async function runInService(service: QuarryService, request: ServiceRunRequest, what: string): Promise<RunOutcomes> {
  const progress = new ProgressLine();
  progress.set(`${what} · queued in the running Quarry`);
  let started = 0;
  const stopEvents = await followServiceEvents(service, ['transform_run_started'], (event) => {
    started += 1;
    progress.set(`${what} · building ${event.model} (model ${String(started)})`);
  });
  try {
    const { job_id: jobId } = await callService<{ job_id: number }>(service, 'POST', '/api/transform/runs', request);
    for (;;) {
      const run = await callService<RunReportAnswer>(service, 'GET', `/api/transform/runs/${String(jobId)}`);
      if (run.status !== 'queued' && run.status !== 'running') return outcomesOfAnswer(run);
      await delay(POLL_MS);
    }
  } finally {
    stopEvents();
    progress.stop();
  }
}

function outcomesOfAnswer(run: RunReportAnswer): RunOutcomes {
  return {
    status: run.status,
    error: run.error,
    models: run.models.map((model) => ({ model: model.name, status: model.status, durationSeconds: model.duration_seconds, error: model.error })),
    tests: run.tests,
  };
}
