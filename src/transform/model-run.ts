import type { EventBus, QuarryEvent } from '../events/index.ts';
import { firstLineOf } from '../errors.ts';
import type { JobKind, JobSuccess, JobTools } from '../jobs/index.ts';
import type { JobRecord, Store } from '../store/index.ts';
import type { DbtOutcome, NodeResult } from './dbt-worker.ts';
import { RunInProgressError } from './errors.ts';
import { ModelGraph } from './manifest.ts';
import { dbtErrorLine } from './dbt-error-line.ts';

const LAYERS = new Set(['staging', 'marts']);

/** What a run produced: dbt's outcome and the row counts of the models it built. */
interface RunOutcome {
  readonly dbt: DbtOutcome;
  readonly rowCounts: ReadonlyMap<string, number>;
  readonly messages: readonly { level: 'INFO' | 'WARNING'; message: string }[];
}

export interface ModelRunOptions {
  readonly target: string;
  /** dbt's --select arguments. */
  readonly selector: readonly string[];
  /** Every model the run covers (two runs over a common model never overlap). */
  readonly models: ReadonlySet<string>;
  readonly requestedBy: string | null;
  readonly store: Store;
  readonly events: EventBus;
  readonly now: () => Date;
  /** The model graph of the last parse. */
  readonly graph: () => ModelGraph;
  /** Runs dbt with these arguments, calling `onProgress` as each model starts and finishes. */
  readonly invoke: (args: readonly string[], signal: AbortSignal, onProgress: (progress: { event: 'started' | 'finished'; uniqueId: string }) => void) => Promise<DbtOutcome>;
}

/** The model-run job kind: dbt run over a selection, each model's outcome recorded, its tables counted. */
export class ModelRun implements JobKind<RunOutcome> {
  readonly kind = 'run';
  readonly fullRefresh = false;
  readonly logSource = null;
  readonly lockScope = 'job';
  readonly target: string;
  readonly serviceLog: JobKind<RunOutcome>['serviceLog'];
  readonly requestedBy: string | null;
  readonly models: ReadonlySet<string>;
  readonly #options: ModelRunOptions;

  constructor(options: ModelRunOptions) {
    this.#options = options;
    this.target = options.target;
    this.requestedBy = options.requestedBy;
    this.models = options.models;
    this.serviceLog = { noun: 'model run', finished: 'model run finished', fields: { target: options.target } };
  }

  /** Whether this run covers any of `models`. */
  overlaps(models: ReadonlySet<string>): boolean {
    return [...models].some((name) => this.models.has(name));
  }

  busy(): Error {
    return new RunInProgressError(this.target);
  }

  started(): string {
    const count = this.models.size;
    return `Run of ${this.target} started (${String(count)} model${count === 1 ? '' : 's'})`;
  }

  async work(tools: JobTools): Promise<RunOutcome> {
    const { store, events, now, graph, invoke, selector } = this.#options;
    const models = graph();
    const dbt = await invoke(['run', '--select', ...selector], tools.signal, (progress) => {
      const name = models.nameOf(progress.uniqueId) ?? progress.uniqueId.split('.').at(-1) ?? progress.uniqueId;
      if (progress.event !== 'started') return;
      store.modelRuns.markRunning(tools.job.id, name, now().toISOString());
      events.publish({ type: 'transform_run_started', model: name });
    });
    const built = dbt.results.filter((result) => result.status === 'success')
      .flatMap((result) => models.models.get(result.name) ?? [])
      .filter((model) => LAYERS.has(model.schema));
    const rowCounts = await tools.countRows(built.map((model) => ({ schema: model.schema, name: model.name })));
    return { dbt, rowCounts, messages: await tools.publish() };
  }

  finished(job: JobRecord, outcome: RunOutcome, finishedAt: string, startedAt: Date): JobSuccess {
    const failures = this.#recordResults(job, outcome, finishedAt);
    const { dbt } = outcome;
    const status = failures.length === 0 && dbt.success ? 'success' : 'failed';
    const summary = failures.length === 0 && dbt.error !== null ? dbtErrorLine(dbt.error) : failures.join('; ');
    const built = dbt.results.filter((result) => result.status === 'success').length;
    const seconds = (Date.parse(finishedAt) - startedAt.getTime()) / 1000;
    return {
      status, rows: null, error: status === 'success' ? null : summary || 'dbt reported a failure', logFields: { status },
      lines: [
        ...outcome.messages,
        status === 'success'
          ? { level: 'SUCCESS', message: `Run of ${this.target} finished: ${String(built)} model${built === 1 ? '' : 's'} built in ${seconds.toFixed(1)} s` }
          : { level: 'ERROR', message: `Run of ${this.target} failed: ${summary}` },
      ],
      events: this.#outcomeEvents(dbt),
    };
  }

  failureMessage(error: unknown, interrupted: boolean): string {
    return interrupted ? 'The run was interrupted because the service is stopping' : `The run failed: ${firstLineOf(error)}`;
  }

  failureLogLevel(): 'warn' {
    return 'warn';
  }

  recordFailure(job: JobRecord, message: string, finishedAt: string): void {
    for (const name of this.models) this.#options.store.modelRuns.finish(job.id, name, { status: 'error', durationSeconds: null, error: message }, finishedAt);
  }

  failedEvents(_job: JobRecord, message: string): QuarryEvent[] {
    const timestamp = this.#options.now().toISOString();
    return [...this.models].map((model) => ({ type: 'transform_run_failed', model, error: message, timestamp }));
  }

  /** Writes each model's outcome and the row counts of the tables it built; returns one line per failed model. */
  #recordResults(job: JobRecord, outcome: RunOutcome, now: string): string[] {
    const { store } = this.#options;
    const graph = this.#options.graph();
    const failures: string[] = [];
    for (const result of outcome.dbt.results) {
      const status = result.status === 'success' ? 'success' : result.status === 'skipped' ? 'skipped' : 'error';
      const error = status === 'success' ? null : status === 'skipped' ? this.#skipReason(result, outcome.dbt) : dbtErrorLine(result.message);
      store.modelRuns.finish(job.id, result.name, {
        status, durationSeconds: result.executionSeconds, error, startedAt: result.startedAt, finishedAt: result.completedAt,
      }, now);
      if (status === 'error') failures.push(`${result.name}: ${error ?? ''}`);
      const model = graph.models.get(result.name);
      const rows = model === undefined ? undefined : outcome.rowCounts.get(`${model.schema}.${model.name}`);
      if (model && rows !== undefined && LAYERS.has(model.schema)) {
        store.warehouseTables.replaceModelTable({ schema: model.schema, name: model.name, layer: model.schema as 'staging' | 'marts', rowCount: rows }, now);
      }
    }
    for (const name of this.#unreported(outcome.dbt)) {
      const error = dbtErrorLine(outcome.dbt.error ?? 'dbt did not run the model');
      store.modelRuns.finish(job.id, name, { status: 'error', durationSeconds: null, error }, now);
      failures.push(`${name}: ${error}`);
    }
    return failures;
  }

  #outcomeEvents(outcome: DbtOutcome): QuarryEvent[] {
    const timestamp = this.#options.now().toISOString();
    const events: QuarryEvent[] = outcome.results.map((result) => result.status === 'success'
      ? { type: 'transform_run_completed', model: result.name, timestamp }
      : { type: 'transform_run_failed', model: result.name, error: result.status === 'skipped' ? this.#skipReason(result, outcome) : dbtErrorLine(result.message), timestamp });
    for (const name of this.#unreported(outcome)) {
      events.push({ type: 'transform_run_failed', model: name, error: dbtErrorLine(outcome.error ?? 'dbt did not run the model'), timestamp });
    }
    return events;
  }

  /** The models of the run dbt reported nothing about. */
  #unreported(outcome: DbtOutcome): string[] {
    const reported = new Set(outcome.results.map((result) => result.name));
    return [...this.models].filter((name) => !reported.has(name));
  }

  #skipReason(skipped: NodeResult, outcome: DbtOutcome): string {
    const graph = this.#options.graph();
    const upstream = outcome.results.filter((result) => result.status === 'error' && graph.withDownstream(result.name).has(skipped.name))
      .map((result) => result.name);
    return upstream.length > 0 ? `Skipped because the upstream model ${upstream.join(', ')} failed` : 'Skipped because an upstream model failed';
  }
}
