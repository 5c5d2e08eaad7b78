import type { ProjectConfig, ProjectPaths } from '../config/index.ts';
import type { EventBus } from '../events/index.ts';
import type { ActiveJob, JobLifecycle } from '../jobs/index.ts';
import type { Logger } from '../logger.ts';
import { pythonExecutable, pythonExecutableOrLog } from '../python/index.ts';
import { stagingColumnNamesOf, type SourceConfig } from '../sources/config/index.ts';
import type { JobRecord, ModelRunRecord, ModelRunStatus, Store, TestResultRecord, TestStatus } from '../store/index.ts';
import { DBT_PROJECT_NAME, dbtTargetDir, ensureDbtProject } from './dbt-project.ts';
import { publishDocsSite } from './docs-site.ts';
import { dbtErrorLine } from './dbt-error-line.ts';
import { DbtWorker, type DbtOutcome, type NodeProgress } from './dbt-worker.ts';
import { DocsGenerationError, ModelNotFoundError, RunInProgressError, RunNotFoundError } from './errors.ts';
import { ModelGraph, readModelGraph, type ModelNode, type TestNode } from './manifest.ts';
import type { LakeLocation, LakeWriter, WarehouseReaders } from '../warehouse/index.ts';
import { readColumns } from './raw-columns.ts';
import { dbtSelector, ModelRun, ModelRunParameters, type DbtCommand } from './model-run.ts';
import { generatedNotNullColumns, stagingColumnNames, stagingModelName, writeStagingModels } from './staging-models.ts';

export interface TransformRunnerOptions {
  store: Store;
  paths: ProjectPaths;
  lake: LakeLocation;
  /** Pooled readers of the same lake (the raw tables' columns a staging refresh reads). */
  readers: WarehouseReaders;
  config: ProjectConfig;
  /** sources.yml as the service last read it (how each source names its staging columns). */
  sources: readonly SourceConfig[];
  events: EventBus;
  log: Logger;
  now: () => Date;
  /** The lake's one writer, shared with sync jobs (docs generation takes a turn too). */
  writer: LakeWriter;
  /** The one job lifecycle model runs go through, as syncs do. */
  jobs: JobLifecycle;
  /** Whether afterSync writes the source's staging models when auto_transform does not need them (ContextOptions.stagingAfterSyncs). */
  stagingAfterSyncs: boolean;
  /** Where the managed Python environments are (bin/setup's .tools/venvs unless a test says otherwise). */
  pythonEnvironmentsDir?: string;
  /** PATH and HOME for the python worker. */
  baseEnv: Readonly<Record<string, string>>;
}

/** A model run's job and the outcomes it recorded. */
export interface RunReport {
  readonly job: JobRecord;
  readonly models: readonly ModelRunRecord[];
  readonly tests: readonly TestResultRecord[];
}

/** A model as the models API reports it. */
export interface ModelSummary extends ModelNode {
  readonly status: ModelRunStatus | 'not_run';
  /** Its data tests by their latest outcome (`failed` counts tests dbt could not run too). */
  readonly tests: { passed: number; failed: number; warned: number; lastRunAt: string | null };
}

/** A data test of the project with its latest outcome. */
export interface TestSummary extends TestNode {
  readonly status: TestStatus | 'not_run';
  readonly severity: 'error' | 'warn' | null;
  readonly failures: number | null;
  readonly message: string | null;
  readonly compiledSql: string | null;
  readonly failingRows: readonly Record<string, unknown>[];
  readonly lastRunAt: string | null;
}

/** How long model runs and staging changes must pause before the docs site is generated again. */
const DOCS_AFTER_CHANGES_MS = 10_000;

/**
 * Runs dbt models as jobs in the lake writer's turn, keeps the staging models in step with the raw tables,
 * caches the manifest for the models API, and regenerates the docs site after every change (once changes
 * have paused for DOCS_AFTER_CHANGES_MS).
 */
export class TransformRunner {
  readonly #options: TransformRunnerOptions;
  readonly #background = new Set<Promise<unknown>>();
  /** What each source's latest sync set off (a parse, a run queued), while it runs: a run downstream of the source waits for it. */
  readonly #stagingRefreshes = new Map<string, Promise<void>>();
  /** Sources this process synced whose sync_completed is still to come: afterSync has followed them up already. */
  readonly #ownSyncs = new Set<string>();
  #graph: ModelGraph | undefined;
  #graphLoaded: Promise<ModelGraph> | undefined;
  #worker: DbtWorker | undefined;
  #docsQueued = false;
  #docsSoon: NodeJS.Timeout | undefined;
  #started = false;
  #projectEnsured = false;
  #closing = false;
  #unfollowDeployment: (() => void) | undefined;
  /** The latest parse #parseAgain started or queued, and the one queued after it, if any. */
  #parsing: Promise<void> = Promise.resolve();
  #nextParse: Promise<void> | undefined;

  constructor(options: TransformRunnerOptions) {
    this.#options = options;
  }

  /**
   * For the serving process: marks runs a stopped service left behind, creates whatever part of the dbt
   * project is missing, then parses and generates the docs site in the background.
   */
  async start(): Promise<void> {
    const { store, now } = this.#options;
    this.#started = true;
    pythonExecutableOrLog('dbt', this.#options.pythonEnvironmentsDir, this.#options.log, 'transformations are unavailable');
    await store.modelRuns.failRunning(null, 'The service stopped before the model finished', now().toISOString());
    this.#ensureProjectOnce();
    if (store.shared !== undefined) this.#followDeployment();
    void this.#inBackground('initial parse and docs', async () => {
      // The manifest the last run left serves the models list at once; the parse then refreshes it.
      await this.#reloadGraph();
      await this.#parse();
      this.#queueDocs();
    });
  }

  /** Every model of the last parsed manifest with its latest status and its tests'; never parses (empty before the first parse). */
  async listModels(): Promise<ModelSummary[]> {
    const latest = await this.#options.store.modelRuns.latestByModel();
    const tests = await this.listTests();
    const models = [...(this.#graph ?? ModelGraph.empty).models.values()];
    return models.sort((a, b) => a.name.localeCompare(b.name)).map((model) => {
      const own = tests.filter((test) => test.model === model.name);
      const runs = own.flatMap((test) => test.lastRunAt ?? []).sort();
      return {
        ...model,
        status: latest.get(model.name)?.status ?? 'not_run',
        tests: {
          passed: own.filter((test) => test.status === 'pass').length,
          failed: own.filter((test) => test.status === 'fail' || test.status === 'error').length,
          warned: own.filter((test) => test.status === 'warn').length,
          lastRunAt: runs.at(-1) ?? null,
        },
      };
    });
  }

  /** Every data test of the last parsed manifest with its latest outcome, by model then name. */
  async listTests(): Promise<TestSummary[]> {
    const latest = await this.#options.store.testResults.latestByTest();
    const tests = [...(this.#graph ?? ModelGraph.empty).tests];
    return tests.sort((a, b) => (a.model ?? '').localeCompare(b.model ?? '') || a.name.localeCompare(b.name)).map((test) => {
      const result = latest.get(test.uniqueId);
      return {
        ...test,
        status: result?.status ?? 'not_run',
        severity: result?.severity ?? null,
        failures: result?.failures ?? null,
        message: result?.message ?? null,
        compiledSql: result?.compiledSql ?? null,
        failingRows: result?.failingRows ?? [],
        lastRunAt: result?.finishedAt ?? null,
      };
    });
  }

  /** The models, parsing the project first when no manifest has been read yet (for the CLI). */
  async loadModels(): Promise<ModelSummary[]> {
    if (!this.#graph) await this.#loadedGraph();
    return this.listModels();
  }

  /** Queues a run of `model` (and with `cascade` everything downstream of it) and starts it when the warehouse is free. */
  async startRun(model: string, options: { cascade: boolean; requestedBy: string | null }): Promise<JobRecord> {
    pythonExecutable('dbt', this.#options.pythonEnvironmentsDir);
    let graph = this.#graph ?? await this.#loadedGraph();
    if (!graph.models.has(model)) {
      // A model file added since the last parse: one parse settles whether it exists.
      await this.#parse();
      graph = this.#graph ?? graph;
    }
    if (!graph.models.has(model)) throw new ModelNotFoundError(model);
    const models = options.cascade ? graph.withDownstream(model) : new Set([model]);
    return (await this.#enqueue(model, [options.cascade ? `${model}+` : model], models, options.requestedBy)).job;
  }

  /**
   * Runs every model downstream of the sources' raw tables (as auto_transform does after one sync), once the
   * staging refresh after their syncs is done; resolves with the run's job once it has finished, or undefined
   * when no model reads those sources.
   */
  async runDownstreamOf(sources: readonly string[], requestedBy: string): Promise<JobRecord | undefined> {
    pythonExecutable('dbt', this.#options.pythonEnvironmentsDir);
    await Promise.all(sources.map((source) => this.#stagingRefreshes.get(source) ?? Promise.resolve()));
    // Outside the serving process a staging refresh does not parse (see #onEvent): the new staging models must be in the graph.
    if (!this.#started) await this.#parse();
    else if (!this.#graph) await this.#loadedGraph();
    const runs = sources.map((source) => this.#downstreamOfSource(source)).filter((run) => run !== undefined);
    if (runs.length === 0) return undefined;
    const models = new Set(runs.flatMap((run) => [...run.models]));
    const active = await this.#enqueueWhenFree(`downstream of ${sources.join(', ')}`, runs.flatMap((run) => run.selector), models, requestedBy);
    await active.ended;
    return await this.#options.store.jobs.get(active.job.id) ?? active.job;
  }

  /**
   * Queues `dbt build` (or `dbt test`, `dbt seed`) of a dbt selector as typed (every node when empty); `onNode` hears
   * each node start and finish when this process runs it (the CLI's progress lines).
   */
  async startBuild(selector: string, options: { command: DbtCommand; requestedBy: string | null; onNode?: (progress: NodeProgress) => void }): Promise<ActiveJob> {
    const words = dbtSelector(selector);
    pythonExecutable('dbt', this.#options.pythonEnvironmentsDir);
    // Which models a selector covers is dbt's to say (its build parses the project anew); the run is taken to
    // cover every model known, so no other run overlaps it.
    const models = new Set((this.#graph ?? await this.#loadedGraph()).models.keys());
    const target = `${options.command} ${words.length === 0 ? 'all' : words.join(' ')}`;
    return this.#enqueue(target, words, models, options.requestedBy, { ...options, exactModels: words.length === 0 });
  }

  /** A model run's job with the outcome of each model and test it has recorded so far. */
  async runReport(jobId: number): Promise<RunReport> {
    const { store } = this.#options;
    const job = await store.jobs.get(jobId);
    if (job?.kind !== 'run') throw new RunNotFoundError(jobId);
    return { job, models: await store.modelRuns.forJob(job.id), tests: await store.testResults.forJob(job.id) };
  }

  /** startBuild, resolving with the job once it has finished. */
  async buildAndWait(selector: string, options: { command: DbtCommand; requestedBy: string | null; onNode: (progress: NodeProgress) => void }): Promise<JobRecord> {
    const active = await this.startBuild(selector, options);
    // The docs regeneration that follows is not waited for (close() waits for it).
    await active.ended;
    return await this.#options.store.jobs.get(active.job.id) ?? active.job;
  }

  /** Starts a run and resolves with the job once it has finished (for the CLI). */
  async runAndWait(model: string, options: { cascade: boolean; requestedBy: string | null }): Promise<JobRecord> {
    const job = await this.startRun(model, options);
    await this.idle();
    return await this.#options.store.jobs.latest('run', job.target) ?? job;
  }

  /** Regenerates the docs site (manifest, catalog, index.html) now. */
  async generateDocs(signal: AbortSignal = new AbortController().signal): Promise<void> {
    const outcome = await this.#generateDocsSite(signal);
    if (!outcome.success) throw new DocsGenerationError(dbtErrorLine(outcome.error));
    await this.#reloadGraph();
  }

  /** Writes the staging models of a source's raw tables (columns read from the lake); true when a file was written. */
  async refreshStaging(source: string): Promise<boolean> {
    const { store, paths, log } = this.#options;
    const tables = (await store.warehouseTables.forSource(source)).filter((table) => table.schema.startsWith('raw_'));
    if (tables.length === 0) return false;
    ensureDbtProject(paths, log);
    const columns = await readColumns(this.#options.readers, tables);
    const tested = generatedNotNullColumns(paths.transformDir, source);
    const naming = stagingColumnNamesOf(this.#options.sources.find((candidate) => candidate.name === source));
    const outcomes = writeStagingModels(paths.transformDir, source, tables.map((table) => {
      const raw = columns.get(`${table.schema}.${table.name}`) ?? [];
      const before = tested.get(stagingModelName(source, table.name)) ?? new Set();
      const names = stagingColumnNames(raw.map((column) => column.name), naming);
      return {
        schema: table.schema, name: table.name, columns: raw.map((column) => column.name),
        notNull: raw.filter((column, index) => !column.hasNulls || before.has(names[index] ?? column.name)).map((column) => column.name),
        uniqueKey: table.primaryKey.length === 1 ? table.primaryKey[0] : null,
      };
    }).filter((table) => table.columns.length > 0), naming);
    const kept = Object.entries(outcomes).filter(([, outcome]) => outcome === 'kept_user_edit').map(([name]) => name);
    if (kept.length > 0) log.info({ source, kept }, 'staging files edited by the user were left as they are');
    return Object.values(outcomes).includes('written');
  }

  /** Resolves when no run, parse or docs generation is queued or running. */
  async idle(): Promise<void> {
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
    await this.#options.writer.idle();
    if (this.#background.size > 0) await this.idle();
  }

  /**
   * Stops following syncs and queuing work; resolves once the queued runs, parses and docs generation have
   * ended (closing the job lifecycle interrupts runs past its grace period) and the worker has stopped. Idempotent.
   */
  async close(): Promise<void> {
    this.#closing = true;
    this.#unfollowDeployment?.();
    // The next start generates the docs site anyway; waiting out the pause only to generate it now would slow every stop.
    clearTimeout(this.#docsSoon);
    await this.idle();
    await this.#worker?.close();
  }

  /** Queues the run; rejects with RunInProgressError while a run covering any of `models` is queued or running. */
  #enqueue(
    target: string, selector: readonly string[], models: ReadonlySet<string>, requestedBy: string | null,
    options: { command?: DbtCommand; onNode?: (progress: NodeProgress) => void; exactModels?: boolean } = {},
  ): Promise<ActiveJob> {
    this.#ensureProjectOnce();
    const run = this.#modelRun(target, selector, models, requestedBy, options);
    // Checked in the lifecycle's turn to enqueue, so that no overlapping run is queued between the check and this one.
    const enqueued = this.#options.jobs.enqueue(run, () => {
      if (this.#overlapping(models).length > 0) throw run.busy();
    });
    void this.#inBackground('model run', async () => {
      // A run refused is its caller's to report.
      const active = await enqueued.catch(() => undefined);
      if (active === undefined) return;
      await active.ended;
      await this.#reloadGraph();
      this.#queueDocsAfterPause();
    });
    return enqueued;
  }

  #modelRun(
    target: string, selector: readonly string[], models: ReadonlySet<string>, requestedBy: string | null,
    options: { command?: DbtCommand; onNode?: (progress: NodeProgress) => void; exactModels?: boolean },
  ): ModelRun {
    const { store, events, now } = this.#options;
    return new ModelRun({
      target, selector, models, requestedBy, store, events, now, command: options.command, onNode: options.onNode, exactModels: options.exactModels,
      graph: () => this.#graph ?? ModelGraph.empty,
      reloadGraph: async () => {
        await this.#reloadGraph();
        return this.#graph ?? ModelGraph.empty;
      },
      invoke: (args, signal, onProgress) => this.#invoke(args, signal, onProgress),
    });
  }

  /**
   * A run another process sent to the deployment's queue, made again from its job's record to run here. This
   * process's copy of the project may not have the staging models another wrote after its syncs: they are written
   * here first, from the raw tables as the lake has them, and parsed.
   */
  async modelRunOf(job: JobRecord): Promise<ModelRun> {
    const { command, selector, models, exactModels } = ModelRunParameters.parse(job.parameters);
    pythonExecutable('dbt', this.#options.pythonEnvironmentsDir);
    this.#ensureProjectOnce();
    let changed = false;
    for (const source of this.#options.sources) changed = await this.refreshStaging(source.name) || changed;
    if (changed) await this.#parse();
    else await this.#loadedGraph();
    return this.#modelRun(job.target, selector, new Set(models), job.requestedBy, { command, exactModels });
  }

  /** The queued and running model runs covering any of `models`. */
  #overlapping(models: ReadonlySet<string>): ActiveJob[] {
    return this.#options.jobs.active().filter((active) => active.kind instanceof ModelRun && active.kind.overlaps(models));
  }

  /** Creates what is missing of the dbt project and upgrades its dbt_project.yml, once per runner (start or first run). */
  #ensureProjectOnce(): void {
    if (this.#projectEnsured) return;
    ensureDbtProject(this.#options.paths, this.#options.log);
    this.#projectEnsured = true;
  }

  /**
   * A sync's last step (JobRunner.followSyncsWith): writes the staging models of the source's tables as they now
   * are, then, without holding up the sync, parses and queues what follows: with auto_transform every model
   * downstream of the source, else the staging models that changed or never built. Without stagingAfterSyncs (a
   * deployment's worker), nothing unless auto_transform.
   */
  async afterSync(source: string): Promise<void> {
    if (this.#unfollowDeployment !== undefined) this.#ownSyncs.add(source);
    const autoTransform = this.#options.config.watcher.auto_transform;
    if (this.#closing || (!this.#options.stagingAfterSyncs && !autoTransform)) return;
    const changed = await this.refreshStaging(source);
    const refresh = this.#inBackground('staging follow-up', async () => {
      if (!this.#started && !autoTransform) return;
      if (changed || autoTransform || !this.#graph) await this.#parse();
      const run = autoTransform ? this.#downstreamOfSource(source) : await this.#stagingToBuild(source, changed);
      if (run) await this.#enqueueWhenFree(run.target, run.selector, run.models, autoTransform ? 'auto_transform' : 'staging_refresh');
      else if (changed) this.#queueDocsAfterPause();
    });
    this.#stagingRefreshes.set(source, refresh);
    void refresh.finally(() => { if (this.#stagingRefreshes.get(source) === refresh) this.#stagingRefreshes.delete(source); });
  }

  /**
   * With a shared platform store, other processes of the deployment sync and run models, each in its own copy of
   * the project: this one writes the staging models of what they loaded, so its models list and docs site have
   * them, queues the runs that build those that changed or never built (as afterSync does after its own syncs: a
   * worker leaves them here, unless auto_transform has it queue every model downstream), and generates the docs
   * site again after their runs. Its own syncs' events are left alone: afterSync has followed them up.
   */
  #followDeployment(): void {
    this.#unfollowDeployment = this.#options.events.subscribe((event) => {
      if (this.#closing) return;
      if (event.type === 'sync_completed') {
        if (this.#ownSyncs.delete(event.source)) return;
        void this.#inBackground('staging after a sync', async () => {
          const changed = await this.refreshStaging(event.source);
          if (changed) await this.#parseAgain();
          const run = this.#options.config.watcher.auto_transform ? undefined : await this.#stagingToBuild(event.source, changed);
          if (run) await this.#enqueueWhenFree(run.target, run.selector, run.models, 'staging_refresh');
          else if (changed) this.#queueDocsAfterPause();
        });
      } else if (event.type === 'transform_run_completed' || event.type === 'transform_run_failed') {
        this.#queueDocsAfterPause();
      }
    });
  }

  /** With auto_transform: every model downstream of the source's raw tables. */
  #downstreamOfSource(source: string): { target: string; selector: string[]; models: Set<string> } | undefined {
    const models = (this.#graph ?? ModelGraph.empty).downstreamOf(`source.${DBT_PROJECT_NAME}.${source}.`);
    return models.size === 0 ? undefined : { target: `source:${source}+`, selector: [`source:${source}+`], models };
  }

  /** The source's staging views, when they changed or have not been built yet, so models over them can run. */
  async #stagingToBuild(source: string, changed: boolean): Promise<{ target: string; selector: string[]; models: Set<string> } | undefined> {
    const latest = await this.#options.store.modelRuns.latestByModel();
    const graph = this.#graph ?? ModelGraph.empty;
    const staging = [...graph.downstreamOf(`source.${DBT_PROJECT_NAME}.${source}.`)]
      .filter((name) => graph.models.get(name)?.schema === 'staging' && graph.models.get(name)?.dependsOn.length === 0)
      .filter((name) => changed || latest.get(name)?.status !== 'success');
    return staging.length === 0 ? undefined : { target: `staging of ${source}`, selector: staging, models: new Set(staging) };
  }

  /** Starts a run now, or once the runs it overlaps have finished. */
  async #enqueueWhenFree(target: string, selector: readonly string[], models: ReadonlySet<string>, requestedBy: string): Promise<ActiveJob> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#enqueue(target, selector, models, requestedBy);
      } catch (error) {
        if (!(error instanceof RunInProgressError) || attempt >= 3 || this.#closing) throw error;
        await Promise.all(this.#overlapping(models).map((run) => run.ended));
      }
    }
  }

  /**
   * Changes come in bursts (a run per synced source with auto_transform, a fix and its rerun): the docs site, a
   * dbt invocation of its own that compiles every model, follows the last of them, not each one.
   */
  #queueDocsAfterPause(): void {
    if (this.#closing) return;
    clearTimeout(this.#docsSoon);
    this.#docsSoon = setTimeout(() => {
      this.#docsSoon = undefined;
      this.#queueDocs();
    }, DOCS_AFTER_CHANGES_MS);
    this.#docsSoon.unref();
  }

  #queueDocs(): void {
    if (this.#docsQueued || this.#closing) return;
    this.#docsQueued = true;
    const signal = new AbortController().signal;
    void this.#inBackground('docs generation', async () => {
      // Once its turn comes, a change made meanwhile needs another generation.
      const outcome = await this.#generateDocsSite(signal, () => { this.#docsQueued = false; });
      if (!outcome.success) this.#options.log.warn({ error: dbtErrorLine(outcome.error) }, 'dbt docs generate failed');
      await this.#reloadGraph();
    });
  }

  /**
   * dbt docs generate in a turn of the lake's writer (`onTurn` runs once it is held); the site is published when it
   * succeeds. It only reads the lake: with a PostgreSQL catalog it goes alongside the syncs of other processes rather
   * than holding every one of them up while dbt compiles the project.
   */
  async #generateDocsSite(signal: AbortSignal, onTurn: () => void = () => undefined): Promise<DbtOutcome> {
    const outcome = await this.#options.writer.turn(() => {
      onTurn();
      return this.#invoke(['docs', 'generate'], signal);
    }, { signal, alongside: 'dbt docs' });
    if (outcome.success) await publishDocsSite(this.#options.paths);
    return outcome;
  }

  /**
   * A parse that follows every change made so far: syncs end in bursts, and each parse is a dbt invocation of
   * a second or more, so the changes made while one runs share the next.
   */
  #parseAgain(): Promise<void> {
    this.#nextParse ??= this.#parsing.then(async () => {
      this.#nextParse = undefined;
      await this.#parse();
    });
    this.#parsing = this.#nextParse.catch(() => undefined);
    return this.#nextParse;
  }

  async #parse(): Promise<void> {
    const outcome = await this.#invoke(['parse'], new AbortController().signal);
    if (!outcome.success) this.#options.log.warn({ error: dbtErrorLine(outcome.error) }, 'the dbt project does not parse');
    await this.#reloadGraph();
  }

  #loadedGraph(): Promise<ModelGraph> {
    this.#graphLoaded ??= (async () => {
      await this.#reloadGraph();
      if (!this.#graph) await this.#parse();
      return this.#graph ?? ModelGraph.empty;
    })().catch((error: unknown) => {
      this.#graphLoaded = undefined; // a repaired environment gets another try
      throw error;
    });
    return this.#graphLoaded;
  }

  async #reloadGraph(): Promise<void> {
    const graph = await readModelGraph(dbtTargetDir(this.#options.paths));
    if (graph) this.#graph = graph;
  }

  #invoke(args: readonly string[], signal: AbortSignal, onStarted?: (progress: NodeProgress) => void): Promise<DbtOutcome> {
    const { paths, lake, log, baseEnv, pythonEnvironmentsDir } = this.#options;
    this.#worker ??= new DbtWorker({
      python: pythonExecutable('dbt', pythonEnvironmentsDir), paths, lake, baseEnv, log: log.child({ component: 'dbt' }),
    });
    return this.#worker.invoke(args, onStarted ?? (() => undefined), signal);
  }

  /** Runs `work` in the background; close() and idle() wait for it, and its failure is logged, never thrown. */
  #inBackground(what: string, work: () => Promise<void>): Promise<void> {
    const task = work().catch((error: unknown) => { this.#options.log.warn({ err: error, task: what }, 'transformation task failed'); });
    this.#background.add(task);
    void task.finally(() => { this.#background.delete(task); });
    return task;
  }
}
