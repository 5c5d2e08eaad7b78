import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { ErrorCode } from '../errors.ts';
import { nodeChild } from '../child-process/index.ts';
import { confined } from '../os/index.ts';
import { lakeFolders, readerLocation, type LakeLocation } from './lake-location.ts';
import type { FromQueryProcess, ToQueryProcess } from './query-process-messages.ts';
import { QueryNotAllowedError } from './reader-sql.ts';
import {
  AnswerTooLargeError, collectAnswer, QueryFailedError, QueryTimeoutError,
  type QueryAnswer, type QueryStreams, type ReadQueryLimits, type ReadQueryResult,
} from './read-query.ts';

const CHILD_SCRIPT = path.join(import.meta.dirname, 'query-process-child.ts');

/**
 * The most memory the query process may hold (RLIMIT_DATA: what it allocates, not what it reserves), DuckDB and
 * Node together: past it an allocation fails, and DuckDB answers "Out of Memory Error" for that query alone. DuckDB's
 * own memory limit (1 GB for all the readers) does not count the values its functions build; this cap does. Idle,
 * the process holds about 0.8 GB.
 */
export const QUERY_PROCESS_MEMORY = 4 * 1024 ** 3;

type Failure = Extract<FromQueryProcess, { kind: 'failed' }>;


/** What an attempt answers when its process ended before answering anything. */
const SENT_TO_ENDED_PROCESS = Symbol('sent to an ended process');

/**
 * How DuckDB's error says an allocation failed at the process's cap (its own memory limit says "could not allocate
 * block of size … used"): the allocator keeps much of what the query took.
 */
const ALLOCATION_FAILED = /^Out of Memory Error: .*\(bad allocation\)/;

/** The messages about one query, in order, as its reader waits for them. */
class Inbox {
  readonly #messages: FromQueryProcess[] = [];
  #waiting: ((message: FromQueryProcess) => void) | undefined;

  put(message: FromQueryProcess): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (waiting === undefined) this.#messages.push(message);
    else waiting(message);
  }

  take(): Promise<FromQueryProcess> {
    const message = this.#messages.shift();
    if (message !== undefined) return Promise.resolve(message);
    return new Promise((resolve) => { this.#waiting = resolve; });
  }
}

/**
 * Users' SQL (the query API, its CSV downloads, `quarry query`) runs in a process of its own, started at the first
 * query, whose memory is capped (QUERY_PROCESS_MEMORY): DuckDB builds some values outside its memory
 * limit, one chunk of rows at a time (400 rows of `repeat('x', 60000000 + i)` took 15 GB), and in the service's
 * process that took every reader, the writer and the API with it. There, such a query fails with DuckDB's out of
 * memory error, or ends the process, which the next query starts again. It reads the lake as its readers do,
 * logging in as the catalog's reader role, and the same checks and limits apply (WarehouseReaders runs there).
 * Where the machine gives it a mount namespace, the lake's data folder is read-only for it (confined).
 */
export class QueryProcess implements QueryStreams {
  readonly #lake: LakeLocation;
  readonly #memory: number;
  #child: ChildProcess | undefined;
  /** The queries waiting for an answer: the process running each, whether it took it, its time-up switch. */
  readonly #inboxes = new Map<number, { readonly inbox: Inbox; readonly child: ChildProcess; accepted: boolean; readonly timeUp: AbortController }>();
  /** Processes to end once their last query has: they ran out of memory, and keep what they took. */
  readonly #retired = new Set<ChildProcess>();
  #lastId = 0;

  constructor(lake: LakeLocation, options: { readonly memory?: number } = {}) {
    this.#lake = readerLocation(lake);
    this.#memory = options.memory ?? QUERY_PROCESS_MEMORY;
  }

  /** Runs the query and collects its rows, as WarehouseReaders.run does. */
  run(sql: string, limits: ReadQueryLimits): Promise<QueryAnswer> {
    return collectAnswer(this, sql, limits);
  }

  /**
   * Runs the query; `work` reads the result in batches, which the query process reads a little ahead of it. A
   * query sent to a process that ended before it took the query (the system ended it, or it had just reached its
   * cap) is sent once more, to a new process; one it took is not, as it may be what ended it.
   */
  async withQuery<T>(sql: string, limits: ReadQueryLimits, work: (result: ReadQueryResult) => Promise<T>): Promise<T> {
    const answered = await this.#attempt(sql, limits, work);
    return answered === SENT_TO_ENDED_PROCESS ? await this.#attempt(sql, limits, work, false) as T : answered;
  }

  async #attempt<T>(sql: string, limits: ReadQueryLimits, work: (result: ReadQueryResult) => Promise<T>, mayRetry = true): Promise<T | typeof SENT_TO_ENDED_PROCESS> {
    limits.signal?.throwIfAborted();
    const child = this.#running();
    const id = ++this.#lastId;
    const inbox = new Inbox();
    const timeUp = new AbortController();
    const waiting = { inbox, child, accepted: false, timeUp };
    this.#inboxes.set(id, waiting);
    let ended = false;
    const cancel = (): void => { if (!ended) this.#send(child, { kind: 'cancel', id }); };
    limits.signal?.addEventListener('abort', cancel, { once: true });
    this.#hold(child);
    try {
      this.#send(child, { kind: 'query', id, sql, maxRows: limits.maxRows, maxCharacters: limits.maxCharacters, timeoutMs: limits.timeoutMs });
      const first = await inbox.take();
      if (first.kind === 'failed' && first.processEnded === true && !waiting.accepted && mayRetry) return SENT_TO_ENDED_PROCESS;
      if (first.kind !== 'part' || first.columns === undefined) throw this.#failureOf(child, first, limits);
      let truncated = false;
      const send = (message: ToQueryProcess): void => { this.#send(child, message); };
      const failureOf = (message: FromQueryProcess): Error => this.#failureOf(child, message, limits);
      return await work({
        columns: first.columns,
        timeUp: timeUp.signal,
        truncated: () => truncated,
        async *batches() {
          for (let part: FromQueryProcess = first; ; part = await inbox.take()) {
            if (part.kind !== 'part') throw failureOf(part);
            if (part.end !== undefined) {
              ended = true;
              truncated = part.end.truncated;
            } else {
              send({ kind: 'next', id });
            }
            if (part.rows.length > 0) yield part.rows;
            if (ended) return;
          }
        },
      });
    } finally {
      cancel();
      limits.signal?.removeEventListener('abort', cancel);
      this.#inboxes.delete(id);
      this.#release(child);
    }
  }

  /** Ends the query process; a later query starts it again. */
  close(): void {
    const child = this.#child;
    if (child !== undefined) this.#end(child, 'Quarry is stopping');
  }

  #running(): ChildProcess {
    if (this.#child !== undefined) return this.#child;
    const node = nodeChild(CHILD_SCRIPT);
    const { command, args } = confined(node, { memory: this.#memory, readOnly: lakeFolders(this.#lake) });
    const child = spawn(command, args, {
      env: node.env,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    this.#child = child;
    child.on('message', (message: FromQueryProcess) => {
      const waiting = this.#inboxes.get(message.id);
      if (message.kind === 'accepted' && waiting !== undefined) waiting.accepted = true;
      else if (message.kind === 'timeUp') waiting?.timeUp.abort();
      else waiting?.inbox.put(message);
    });
    child.on('error', (error) => { this.#ended(child, `The query process could not be started: ${error.message}`); });
    child.on('exit', (code, signal) => {
      this.#retired.delete(child);
      // 97: a folder could not be made read-only; 126, 127: prlimit or Node could not be run.
      if (code === 97 || code === 126 || code === 127) this.#ended(child, `The query process could not be started (exit code ${String(code)}); see the service's log`);
      else this.#ended(child, `The query process ${signal === null ? `exited with code ${String(code)}` : `was ended by ${signal}`} while running the query, most likely out of memory (${this.#memoryLimit()}): select fewer or smaller values`);
    });
    this.#send(child, { kind: 'open', lake: this.#lake });
    this.#release(child);
    return child;
  }

  /**
   * Keeps the service's event loop alive while a query waits for its answer (a command line that only queries);
   * idle, the process does not hold the service, and ends when the service does (its channel closes).
   */
  #hold(child: ChildProcess): void {
    child.ref();
    child.channel?.ref();
  }

  #release(child: ChildProcess): void {
    if ([...this.#inboxes.values()].some((waiting) => waiting.child === child)) return;
    child.unref();
    child.channel?.unref();
    if (this.#retired.delete(child)) child.kill('SIGKILL');
  }

  /** New queries go to a new process; this one ends once its last query has (see #release). */
  #retire(child: ChildProcess): void {
    if (this.#child === child) this.#child = undefined;
    this.#retired.add(child);
  }

  #end(child: ChildProcess, message: string): void {
    this.#ended(child, message);
    child.kill('SIGKILL');
  }

  #send(child: ChildProcess, message: ToQueryProcess): void {
    if (child.connected) child.send(message);
  }

  /** Every query the process was answering fails with `message`; the next query starts a new process. */
  #ended(child: ChildProcess, message: string): void {
    if (this.#child === child) this.#child = undefined;
    for (const [id, waiting] of this.#inboxes) {
      if (waiting.child === child) waiting.inbox.put({ kind: 'failed', id, code: 'query_failed', message, processEnded: true });
    }
  }

  #memoryLimit(): string {
    return `a query may use ${String(Math.round(this.#memory / 1024 ** 3))} GB`;
  }

  /**
   * The error the query process reported, as readers in this process would have thrown it. A process that reached
   * its cap keeps much of what it took (the allocator does not give it back), so the next query would find it
   * full: it is retired, and the next query starts another.
   */
  #failureOf(child: ChildProcess, message: FromQueryProcess, limits: ReadQueryLimits): Error {
    if (message.kind !== 'failed') return new QueryFailedError('The query process answered out of order');
    if (!ALLOCATION_FAILED.test(message.message)) return errorOf(message, limits);
    this.#retire(child);
    return new QueryFailedError(`${message.message} (${this.#memoryLimit()}): select fewer or smaller values`);
  }
}

function errorOf(failure: Failure, limits: ReadQueryLimits): Error {
  const byCode: Partial<Record<ErrorCode, () => Error>> = {
    query_timeout: () => new QueryTimeoutError(failure.message),
    query_not_allowed: () => new QueryNotAllowedError(failure.message),
  };
  if (limits.signal?.aborted === true) return new QueryFailedError('The query was cancelled');
  if (failure.columns !== undefined) return new AnswerTooLargeError(failure.message, failure.columns);
  return byCode[failure.code]?.() ?? new QueryFailedError(failure.message);
}
