import path from 'node:path';
import type { ProjectPaths } from '../config/index.ts';
import type { Logger } from '../logger.ts';
import { PythonWorker, type WorkerMessage } from '../python/index.ts';
import { writeWorkerProfile } from './dbt-project.ts';

const WORKER_SCRIPT = path.join(import.meta.dirname, 'dbt_worker.py');

/** dbt's report on one node of an invocation. */
export interface NodeResult {
  readonly uniqueId: string;
  readonly name: string;
  /** `success`, `error`, `skipped` (and for other commands, dbt's other statuses). */
  readonly status: string;
  readonly message: string | null;
  readonly executionSeconds: number;
  /** When dbt started and finished executing the node (ISO 8601), if it executed. */
  readonly startedAt: string | null;
  readonly completedAt: string | null;
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
}

interface ResultMessage {
  success: boolean;
  error: string | null;
  results: { unique_id: string; name: string; status: string; message: string | null; execution_time: number; started_at: string | null; completed_at: string | null }[];
}

/** dbt kept warm in a python worker (dbtRunner), bound to one project's dbt folder and warehouse file. */
export class DbtWorker {
  readonly #worker: PythonWorker;

  constructor(options: { python: string; paths: ProjectPaths; baseEnv: Readonly<Record<string, string>>; log: Logger }) {
    const { paths, baseEnv } = options;
    this.#worker = new PythonWorker({
      environment: 'dbt',
      python: options.python,
      script: WORKER_SCRIPT,
      cwd: paths.transformDir,
      env: {
        ...baseEnv,
        DBT_PROJECT_DIR: paths.transformDir,
        DBT_PROFILES_DIR: writeWorkerProfile(paths),
        QUARRY_WAREHOUSE_FILE: paths.warehouseFile,
        DBT_SEND_ANONYMOUS_USAGE_STATS: 'false',
        DBT_VERSION_CHECK: 'false',
        DBT_USE_COLORS: 'false',
        DBT_PARTIAL_PARSE: 'true',
        PYTHONUNBUFFERED: '1',
        PYTHONDONTWRITEBYTECODE: '1',
      },
      log: options.log,
    });
  }

  /** Runs one dbt command (`['run', '--select', 'orders+']`); invocations queue and run one at a time. */
  async invoke(args: readonly string[], onProgress: (progress: NodeProgress) => void, signal: AbortSignal): Promise<DbtOutcome> {
    const onMessage = (message: WorkerMessage): void => {
      if (message.type !== 'node' || typeof message.unique_id !== 'string') return;
      onProgress({ event: message.event === 'started' ? 'started' : 'finished', uniqueId: message.unique_id });
    };
    const result = await this.#worker.request({ args }, onMessage, signal) as unknown as ResultMessage;
    return {
      success: result.success,
      error: result.error,
      results: result.results.map((node) => ({
        uniqueId: node.unique_id, name: node.name, status: node.status, message: node.message, executionSeconds: node.execution_time,
        startedAt: node.started_at,
        completedAt: node.completed_at,
      })),
    };
  }

  close(deadlineMs?: number): Promise<void> {
    return this.#worker.close(deadlineMs);
  }
}
