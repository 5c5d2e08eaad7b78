import type { ProjectConfig } from '../config/index.ts';
import { describeError } from '../errors.ts';
import type { Store } from '../store/index.ts';
import type { QueryAnswer, QueryProcess, ReadQueryLimits, ReadQueryResult } from '../warehouse/index.ts';

export interface QueryServiceOptions {
  /** Where users' SQL runs: a process of its own, whose memory is capped. */
  readonly process: Pick<QueryProcess, 'run' | 'withQuery' | 'close'>;
  readonly config: ProjectConfig;
  readonly store: Store;
  readonly now: () => Date;
}

/** Who asked, for the audit log. */
export interface QueryCaller {
  readonly email: string;
  readonly ip: string | null;
}

export interface QueryRequest {
  readonly sql: string;
  /** Rows wanted; never more than `limits.query_rows`. */
  readonly limit?: number | undefined;
  readonly caller: QueryCaller;
  /** Interrupts the query (the client went away). */
  readonly signal?: AbortSignal | undefined;
}

// The audit log keeps what was asked, not what came back; long SQL is cut.
const AUDITED_SQL_CHARACTERS = 1000;

/**
 * Users' read-only SQL on the warehouse, within the project's limits (`limits.query_seconds`,
 * `limits.query_rows`), every run recorded in the audit log (who, when, how long, how it ended).
 */
export class QueryService {
  readonly #options: QueryServiceOptions;

  constructor(options: QueryServiceOptions) {
    this.#options = options;
  }

  /** The most rows one query returns. */
  get maxRows(): number {
    return this.#options.config.limits.query_rows;
  }

  /** Ends the process queries run in. */
  close(): void {
    this.#options.process.close();
  }

  /** Runs the query and collects its rows. */
  run(request: QueryRequest): Promise<QueryAnswer> {
    return this.#audited(request, () => this.#options.process.run(request.sql, this.#limits(request)));
  }

  /** Runs the query and lets `work` read its rows in batches (a download). */
  stream<T>(request: QueryRequest, work: (result: ReadQueryResult) => Promise<T>): Promise<T> {
    return this.#audited(request, () => this.#options.process.withQuery(request.sql, this.#limits(request), work));
  }

  #limits(request: QueryRequest): ReadQueryLimits {
    const { limits } = this.#options.config;
    return {
      maxRows: Math.min(request.limit ?? limits.query_rows, limits.query_rows),
      timeoutMs: limits.query_seconds * 1000,
      signal: request.signal,
    };
  }

  async #audited<T>(request: QueryRequest, work: () => Promise<T>): Promise<T> {
    const { store, now } = this.#options;
    const started = performance.now();
    const record = async (outcome: string): Promise<void> => {
      const elapsedMs = Math.round(performance.now() - started);
      await store.audit.append({
        at: now().toISOString(), event: 'query', actorEmail: request.caller.email, subject: request.sql.slice(0, AUDITED_SQL_CHARACTERS),
        ip: request.caller.ip, detail: `${outcome} in ${String(elapsedMs)} ms`,
      });
    };
    try {
      const result = await work();
      await record('succeeded');
      return result;
    } catch (error) {
      await record(`failed (${describeError(error).split('\n')[0] ?? ''})`);
      throw error;
    }
  }
}
