import path from 'node:path';
import type { ProjectPaths } from '../config/index.ts';
import type { Logger } from '../logger.ts';
import { PythonWorker, type WorkerMessage } from '../python/index.ts';
import { DUCKDB_EXTENSIONS_DIR, lakeChildEnv, READER_SANDBOX_PYTHON_PATH, type LakeLocation } from '../warehouse/index.ts';
import { writeWorkerProfile } from './dbt-project.ts';

const WORKER_SCRIPT = path.join(import.meta.dirname, 'dbt_worker.py');

/** What dbt reports of a data test beside its status. */
export interface TestDetails {
  readonly columnName: string | null;
  /** `unique`, `not_null`, `relationships`... or `singular`. */
  readonly testType: string;
  readonly severity: 'error' | 'warn';
  /** Rows that failed the test. */
  readonly failures: number | null;
  readonly compiledCode: string | null;
  /** The table dbt stored the failing rows in (with --store-failures), as dbt quotes it. */
  readonly relationName: string | null;
  /** Where dbt stores the test's failing rows when asked to, stored this time or not. */
  readonly failuresTable: { readonly schema: string; readonly name: string };
}

/** dbt's report on one node of an invocation. */
export interface NodeResult {
  readonly uniqueId: string;
  readonly name: string;
  /** `model`, `test`, `seed`, `snapshot`... */
  readonly resourceType: string;
  /** Models, seeds, snapshots: `success`, `error`, `skipped`; tests: `pass`, `fail`, `warn`, `error`, `skipped`. */
  readonly status: string;
  readonly message: string | null;
  readonly executionSeconds: number;
  /** When dbt started and finished executing the node (ISO 8601), if it executed. */
  readonly startedAt: string | null;
  readonly completedAt: string | null;
  /** For a data test: what it checks and found. */
  readonly test: TestDetails | null;
}

export interface DbtOutcome {
  readonly success: boolean;
  /** An error outside any one node (a project that does not parse, say). */
  readonly error: string | null;
  readonly results: readonly NodeResult[];
}

export interface NodeProgress {
  readonly event: 'started' | 'finished';
  readonly uniqueId: string;
  /** dbt's status of the node once finished (`success`, `pass`, `fail`, `warn`, `error`, `skipped`). */
  readonly status: string | null;
}

interface TestMessage {
  column_name: string | null; test_type: string; severity: string; failures: number | null;
  compiled_code: string | null; relation_name: string | null; failures_table: { schema: string; name: string };
}

interface ResultMessage {
  success: boolean;
  error: string | null;
  results: {
    unique_id: string; name: string; resource_type: string; status: string; message: string | null; execution_time: number;
    started_at: string | null; completed_at: string | null; test: TestMessage | null;
  }[];
}

function toTestDetails(test: TestMessage | null): TestDetails | null {
  if (test === null) return null;
  return {
    columnName: test.column_name, testType: test.test_type,
    severity: test.severity === 'warn' ? 'warn' : 'error', failures: test.failures, compiledCode: test.compiled_code,
    relationName: test.relation_name, failuresTable: test.failures_table,
  };
}

/** dbt kept warm in a python worker (dbtRunner), bound to one project's dbt folder and lake. */
export class DbtWorker {
  readonly #worker: PythonWorker;

  /**
   * `idleCloseSeconds`: how long dbt's DuckDB instance, the lake attached, stays open after an invocation for the
   * next to use (dbt_worker.py; 30 s when left out).
   */
  constructor(options: {
    python: string; paths: ProjectPaths; lake: LakeLocation; baseEnv: Readonly<Record<string, string>>; log: Logger; idleCloseSeconds?: number;
  }) {
    const { paths, lake, baseEnv } = options;
    this.#worker = new PythonWorker({
      environment: 'dbt',
      python: options.python,
      script: WORKER_SCRIPT,
      cwd: paths.transformDir,
      env: {
        ...baseEnv,
        DBT_PROJECT_DIR: paths.transformDir,
        DBT_PROFILES_DIR: writeWorkerProfile(paths, lake),
        ...lakeChildEnv(lake),
        QUARRY_DUCKDB_EXTENSIONS: DUCKDB_EXTENSIONS_DIR,
        // The profile's plugin (quarry_lake.py) lives beside this file and opens the lake as reader_sandbox.py does.
        PYTHONPATH: [import.meta.dirname, READER_SANDBOX_PYTHON_PATH].join(path.delimiter),
        DBT_SEND_ANONYMOUS_USAGE_STATS: 'false',
        DBT_VERSION_CHECK: 'false',
        DBT_USE_COLORS: 'false',
        DBT_PARTIAL_PARSE: 'true',
        PYTHONUNBUFFERED: '1',
        PYTHONDONTWRITEBYTECODE: '1',
        ...options.idleCloseSeconds === undefined ? {} : { QUARRY_DBT_IDLE_CLOSE_SECONDS: String(options.idleCloseSeconds) },
      },
      log: options.log,
    });
  }

  /** Runs one dbt command (`['build', '--select', 'orders+']`); invocations queue and run one at a time. */
  async invoke(args: readonly string[], onProgress: (progress: NodeProgress) => void, signal: AbortSignal): Promise<DbtOutcome> {
    const onMessage = (message: WorkerMessage): void => {
      if (message.type !== 'node' || typeof message.unique_id !== 'string') return;
      onProgress({
        event: message.event === 'started' ? 'started' : 'finished', uniqueId: message.unique_id,
        status: typeof message.status === 'string' && message.status !== '' ? message.status : null,
      });
    };
    const result = await this.#worker.request({ args }, onMessage, signal) as unknown as ResultMessage;
    return {
      success: result.success,
      error: result.error,
      results: result.results.map((node) => ({
        uniqueId: node.unique_id, name: node.name, resourceType: node.resource_type, status: node.status, message: node.message,
        executionSeconds: node.execution_time, startedAt: node.started_at, completedAt: node.completed_at, test: toTestDetails(node.test),
      })),
    };
  }

  close(deadlineMs?: number): Promise<void> {
    return this.#worker.close(deadlineMs);
  }
}
