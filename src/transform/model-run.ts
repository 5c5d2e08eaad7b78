import { z } from 'zod';
import type { EventBus, QuarryEvent } from '../events/index.ts';
import { firstLineOf, InvalidRequestError } from '../errors.ts';
import type { JobKind, JobSuccess, JobTools } from '../jobs/index.ts';
import { TEST_STATUSES, type JobRecord, type Store } from '../store/index.ts';
import { latestSnapshotId, WarehouseBusyError } from '../warehouse/index.ts';
import type { DbtOutcome, NodeProgress, NodeResult } from './dbt-worker.ts';
import { dropStoredFailures, readFailingRows } from './failing-rows.ts';
import { RunInProgressError } from './errors.ts';
import { ModelGraph } from './manifest.ts';
import { countRows } from './count-rows.ts';
import { dbtErrorLine } from './dbt-error-line.ts';

const LAYERS = new Set(['staging', 'marts']);

export const DBT_COMMANDS = ['build', 'test', 'seed'] as const;
export type DbtCommand = typeof DBT_COMMANDS[number];

/**
 * One word of a dbt selector: a node name or a method's value (`tag:nightly`, `path:models/marts`), with graph
 * operators (`+orders`, `2+orders`, `@orders`) and intersections (`tag:a,tag:b`). Never a flag: each word is passed
 * to dbt after --select, where `--vars` or `--profiles-dir` would be read as options.
 */
const SELECTOR_WORD = /^(?!-)[\p{L}\p{N}_.:/*+@,-]{1,200}$/u;
const SELECTOR_WORDS_MAX = 100;

/** A dbt selector as typed (words separated by spaces), as --select arguments; every node when empty. */
export function dbtSelector(text: string): string[] {
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length > SELECTOR_WORDS_MAX) throw new InvalidRequestError(`A selector has at most ${String(SELECTOR_WORDS_MAX)} words`);
  const wrong = words.find((word) => !SELECTOR_WORD.test(word));
  if (wrong !== undefined) {
    throw new InvalidRequestError(`"${wrong.slice(0, 60)}" is not a dbt selector word: expected node names, method:value and the operators + @ * , (and no leading -)`);
  }
  return words;
}

/** What another process needs to make a run again from its job's record (TransformRunner.modelRunOf). */
export const ModelRunParameters = z.object({
  selector: z.array(z.string().regex(SELECTOR_WORD)),
  models: z.array(z.string()),
  command: z.enum(DBT_COMMANDS),
  exactModels: z.boolean(),
});
export type ModelRunParameters = z.infer<typeof ModelRunParameters>;

/** How many lines of a test's compiled SQL are kept. */
const COMPILED_LINES_KEPT = 15;

/** What a run produced: dbt's outcome, the row counts of the models it built and the rows that failed its tests. */
interface RunOutcome {
  readonly dbt: DbtOutcome;
  readonly rowCounts: ReadonlyMap<string, number>;
  /** Keyed by the failed or warned test's unique id. */
  readonly failingRows: ReadonlyMap<string, Record<string, unknown>[]>;
}

export interface ModelRunOptions {
  readonly target: string;
  /** dbt's --select arguments. */
  readonly selector: readonly string[];
  /** `build` (models, their tests, seeds and snapshots), `test` (only the tests) or `seed` (reload the seeds). */
  readonly command?: DbtCommand;
  /** Told of every node (model, test, seed, snapshot) as it starts and finishes, for live progress. */
  readonly onNode?: (progress: NodeProgress) => void;
  /** Every model the run covers (two runs over a common model never overlap). */
  readonly models: ReadonlySet<string>;
  /**
   * False when `models` only bounds the selection (a dbt selector from the CLI covers some of them, dbt alone
   * knows which): then a model dbt says nothing of was not selected, rather than not run.
   */
  readonly exactModels?: boolean;
  readonly requestedBy: string | null;
  readonly store: Store;
  readonly events: EventBus;
  readonly now: () => Date;
  /** The model graph of the last parse. */
  readonly graph: () => ModelGraph;
  /** Reads the graph again from the manifest dbt has just written, which knows the models added since the last parse. */
  readonly reloadGraph: () => Promise<ModelGraph>;
  /** Runs dbt with these arguments, calling `onProgress` as each node starts and finishes. */
  readonly invoke: (args: readonly string[], signal: AbortSignal, onProgress: (progress: NodeProgress) => void) => Promise<DbtOutcome>;
}

/** The model-run job kind: dbt build over a selection, each model's and test's outcome recorded, its tables counted. */
export class ModelRun implements JobKind<RunOutcome> {
  readonly kind = 'run';
  readonly fullRefresh = false;
  readonly logSource = null;
  readonly lockScope = 'job';
  readonly target: string;
  readonly serviceLog: JobKind<RunOutcome>['serviceLog'];
  readonly requestedBy: string | null;
  readonly models: ReadonlySet<string>;
  readonly parameters: ModelRunParameters;
  readonly #options: ModelRunOptions;

  constructor(options: ModelRunOptions) {
    this.#options = options;
    this.target = options.target;
    this.requestedBy = options.requestedBy;
    this.models = options.models;
    this.parameters = {
      selector: [...options.selector], models: [...options.models], command: options.command ?? 'build', exactModels: options.exactModels ?? true,
    };
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
    const { store, events, now, graph, reloadGraph, invoke, selector, onNode } = this.#options;
    const parsed = graph();
    // dbt commits its own snapshots (about two per model), so they cannot carry the job's id: the job
    // records the span of snapshots it made instead, the latest before it and after it.
    const before = await tools.write(({ connection }) => latestSnapshotId(connection));
    await store.jobs.recordSnapshotRange(tools.job.id, before, null);
    // Each model is marked running, then announced, in the order dbt starts them; the run waits for the last of
    // them before it goes on or fails, so that no model is marked running after the run's ending is recorded.
    let marked = Promise.resolve();
    const dbt = await invoke([this.#options.command ?? 'build', ...selectArguments(selector)], tools.signal, (progress) => {
      onNode?.(progress);
      const name = parsed.nameOf(progress.uniqueId);
      if (name === undefined || progress.event !== 'started') return;
      const startedAt = now().toISOString();
      marked = marked.then(async () => {
        await store.modelRuns.markRunning(tools.job.id, name, startedAt);
        events.publish({ type: 'transform_run_started', model: name });
      });
      // Its failure fails the run once dbt is done (awaited below), not the process meanwhile.
      void marked.catch(() => undefined);
    }).finally(() => marked.catch(() => undefined));
    await marked;
    const models = await reloadGraph();
    const failingRows = await this.#storeFailures(dbt, tools);
    const built = modelResults(dbt).filter((result) => result.status === 'success')
      .flatMap((result) => models.models.get(result.name) ?? [])
      .filter((model) => LAYERS.has(model.schema))
      .map((model) => ({ schema: model.schema, name: model.name }));
    // What follows dbt opens the lake once: each opening is a DuckDB instance of its own and the catalog read again.
    const passedTests = dbt.results.filter((result) => result.status === 'pass').flatMap((result) => result.test?.failuresTable ?? []);
    const { after, rowCounts } = await tools.write(async (write) => {
      await dropStoredFailures(write, passedTests);
      return { after: await latestSnapshotId(write.connection), rowCounts: await countRows(write.connection, built) };
    });
    await store.jobs.recordSnapshotRange(tools.job.id, before, after);
    return { dbt, rowCounts, failingRows };
  }

  /**
   * Keeps the failing rows of the tests that failed or warned, in tables of the test_failures schema named after
   * each test (dbt's store_failures); the tables of tests that pass now are dropped after (work). Only the failed
   * tests run a second time, with --store-failures: a green run writes no table per test (40 tests stored at every
   * run cost more than building the models). Returns up to FAILING_ROWS_KEPT rows of each, by the test's id.
   */
  async #storeFailures(dbt: DbtOutcome, tools: JobTools): Promise<Map<string, Record<string, unknown>[]>> {
    const failed = dbt.results.filter((result) => result.test !== null && (result.status === 'fail' || result.status === 'warn'));
    const rows = new Map<string, Record<string, unknown>[]>();
    if (failed.length > 0) {
      const stored = await this.#options.invoke(['test', '--store-failures', ...selectArguments(failed.map((result) => result.name))], tools.signal, () => undefined);
      const relations = new Map(stored.results.flatMap((result) => (result.test?.relationName == null ? [] : [[result.uniqueId, result.test.relationName] as const])));
      const read = await tools.write(({ connection }) => readFailingRows(connection, [...relations.values()]));
      for (const [test, relation] of relations) rows.set(test, read.get(relation) ?? []);
    }
    return rows;
  }

  async finished(job: JobRecord, outcome: RunOutcome, finishedAt: string, startedAt: Date): Promise<JobSuccess> {
    const failures = await this.#recordResults(job, outcome, finishedAt);
    const { dbt } = outcome;
    const status = failures.length === 0 && dbt.success ? 'success' : 'failed';
    const summary = failures.length === 0 && dbt.error !== null ? dbtErrorLine(dbt.error) : failures.join('; ');
    const built = modelResults(dbt).filter((result) => result.status === 'success').length;
    const seconds = (Date.parse(finishedAt) - startedAt.getTime()) / 1000;
    return {
      status, rows: null, error: status === 'success' ? null : summary || 'dbt reported a failure', logFields: { status },
      lines: [
        status === 'success'
          ? { level: 'SUCCESS', message: `Run of ${this.target} finished: ${String(built)} model${built === 1 ? '' : 's'} built in ${seconds.toFixed(1)} s` }
          : { level: 'ERROR', message: `Run of ${this.target} failed: ${summary}` },
      ],
      events: this.#outcomeEvents(dbt),
    };
  }

  failureMessage(error: unknown, interrupted: boolean): string {
    if (interrupted) return 'The run was interrupted because the service is stopping';
    return error instanceof WarehouseBusyError ? error.message : `The run failed: ${firstLineOf(error)}`;
  }

  failureLogLevel(error: unknown): 'warn' | undefined {
    // Another process writing the warehouse is told in the run's history, as it is for a sync.
    return error instanceof WarehouseBusyError ? undefined : 'warn';
  }

  /** Another process writing the warehouse (a `quarry sync` in a terminal) is done soon: a schedule tries again. */
  isTransient(error: unknown): boolean {
    return error instanceof WarehouseBusyError;
  }

  async recordFailure(job: JobRecord, message: string, finishedAt: string): Promise<void> {
    for (const name of this.#surelySelected()) await this.#options.store.modelRuns.finish(job.id, name, { status: 'error', durationSeconds: null, error: message }, finishedAt);
  }

  failedEvents(_job: JobRecord, message: string): QuarryEvent[] {
    const timestamp = this.#options.now().toISOString();
    return this.#surelySelected().map((model) => ({ type: 'transform_run_failed', model, error: message, timestamp }));
  }

  /** Writes each model's and test's outcome and the row counts of the tables it built; returns one line per failed model or test. */
  async #recordResults(job: JobRecord, outcome: RunOutcome, now: string): Promise<string[]> {
    const { store } = this.#options;
    const graph = this.#options.graph();
    const failures: string[] = [];
    for (const result of outcome.dbt.results) {
      if (result.test === null) continue;
      const status = TEST_STATUSES.find((candidate) => candidate === result.status) ?? 'error';
      const model = this.#testedModel(result);
      await store.testResults.record({
        jobId: job.id, test: result.uniqueId, name: result.name, model, column: result.test.columnName, type: result.test.testType,
        severity: result.test.severity, status, failures: result.test.failures, message: result.message,
        compiledSql: result.test.compiledCode === null ? null : result.test.compiledCode.trim().split('\n').slice(0, COMPILED_LINES_KEPT).join('\n'),
        failingRows: outcome.failingRows.get(result.uniqueId) ?? [],
        finishedAt: result.completedAt ?? now,
      });
      if (status === 'fail') failures.push(`${model ?? result.name}: the test ${result.name} failed (${String(result.test.failures ?? 0)} failing rows)`);
      if (status === 'error') failures.push(`${model ?? result.name}: the test ${result.name} could not run: ${dbtErrorLine(result.message)}`);
    }
    for (const result of modelResults(outcome.dbt)) {
      const status = result.status === 'success' ? 'success' : result.status === 'skipped' ? 'skipped' : 'error';
      const error = status === 'success' ? null : status === 'skipped' ? this.#skipReason(result, outcome.dbt) : dbtErrorLine(result.message);
      await store.modelRuns.finish(job.id, result.name, {
        status, durationSeconds: result.executionSeconds, error, startedAt: result.startedAt, finishedAt: result.completedAt,
      }, now);
      if (status === 'error') failures.push(`${result.name}: ${error ?? ''}`);
      const model = graph.models.get(result.name);
      const rows = model === undefined ? undefined : outcome.rowCounts.get(`${model.schema}.${model.name}`);
      if (model && rows !== undefined && LAYERS.has(model.schema)) {
        await store.warehouseTables.replaceModelTable({ schema: model.schema, name: model.name, layer: model.schema as 'staging' | 'marts', rowCount: rows }, now);
      }
    }
    for (const name of this.#unreported(outcome.dbt)) {
      const error = dbtErrorLine(outcome.dbt.error ?? 'dbt did not run the model');
      await store.modelRuns.finish(job.id, name, { status: 'error', durationSeconds: null, error }, now);
      failures.push(`${name}: ${error}`);
    }
    return failures;
  }

  #outcomeEvents(outcome: DbtOutcome): QuarryEvent[] {
    const timestamp = this.#options.now().toISOString();
    const events: QuarryEvent[] = modelResults(outcome).map((result) => result.status === 'success'
      ? { type: 'transform_run_completed', model: result.name, timestamp }
      : { type: 'transform_run_failed', model: result.name, error: result.status === 'skipped' ? this.#skipReason(result, outcome) : dbtErrorLine(result.message), timestamp });
    for (const name of this.#unreported(outcome)) {
      events.push({ type: 'transform_run_failed', model: name, error: dbtErrorLine(outcome.error ?? 'dbt did not run the model'), timestamp });
    }
    return [...events, ...this.#testEvents(outcome, timestamp)];
  }

  /** A failed or warned test's event each, and for each model none of whose tests failed, that they passed. */
  #testEvents(outcome: DbtOutcome, timestamp: string): QuarryEvent[] {
    const events: QuarryEvent[] = [];
    const passedOf = new Map<string, number>();
    const notPassed = new Set<string>();
    for (const result of outcome.results) {
      if (result.test === null) continue;
      const model = this.#testedModel(result) ?? result.name;
      if (result.status === 'pass' || result.status === 'warn') passedOf.set(model, (passedOf.get(model) ?? 0) + 1);
      else notPassed.add(model);
      if (!['fail', 'error', 'warn'].includes(result.status)) continue;
      const type = result.status === 'warn' ? 'transform_test_warned' as const : 'transform_test_failed' as const;
      events.push({ type, model, test: result.name, failures: result.test.failures ?? 0, timestamp });
    }
    for (const [model, tests] of passedOf) {
      if (!notPassed.has(model)) events.push({ type: 'transform_tests_passed', model, tests, timestamp });
    }
    return events;
  }

  /** The models of the run dbt reported nothing about. */
  #unreported(outcome: DbtOutcome): string[] {
    if (this.#options.command === 'test' || this.#options.command === 'seed') return [];
    const reported = new Set(modelResults(outcome).map((result) => result.name));
    return this.#surelySelected().filter((name) => !reported.has(name));
  }

  /** The models the run is known to cover. */
  #surelySelected(): string[] {
    return this.#options.exactModels === false ? [] : [...this.models];
  }

  /** The name of the model (seed, snapshot) a test checks; null for a singular test that belongs to none. */
  #testedModel(result: NodeResult): string | null {
    return this.#options.graph().testedModel(result.uniqueId);
  }

  /** Why dbt skipped a model: the failed models, or the failed tests of models, upstream of it. */
  #skipReason(skipped: NodeResult, outcome: DbtOutcome): string {
    const graph = this.#options.graph();
    const upstreamOfSkipped = (name: string | null): boolean => name !== null && name !== skipped.name && graph.withDownstream(name).has(skipped.name);
    const models = modelResults(outcome).filter((result) => result.status === 'error' && upstreamOfSkipped(result.name)).map((result) => result.name);
    const tests = outcome.results.filter((result) => result.test !== null && (result.status === 'fail' || result.status === 'error'))
      .filter((result) => upstreamOfSkipped(this.#testedModel(result)))
      .map((result) => `${result.name} of ${this.#testedModel(result) ?? ''}`);
    if (models.length > 0) return `Skipped because the upstream model ${models.join(', ')} failed`;
    if (tests.length > 0) return `Skipped because the upstream test ${tests.join(', ')} failed`;
    return 'Skipped because an upstream model failed';
  }
}

/** dbt's --select and its arguments; nothing for every node. */
function selectArguments(selector: readonly string[]): string[] {
  return selector.length > 0 ? ['--select', ...selector] : [];
}

/** The results of models, seeds and snapshots (dbt build also reports tests). */
function modelResults(outcome: DbtOutcome): NodeResult[] {
  return outcome.results.filter((result) => result.resourceType === 'model' || result.resourceType === 'seed' || result.resourceType === 'snapshot');
}
