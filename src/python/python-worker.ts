import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { Logger } from '../logger.ts';
import { stopProcessGroup } from '../child-process/index.ts';
import { PythonEnvironmentError } from './python-environment.ts';

/** A message the worker writes for a request: progress lines, then one line with `type: 'result'`. */
export interface WorkerMessage {
  readonly id: number;
  readonly type: string;
  readonly [field: string]: unknown;
}

export interface PythonWorkerOptions {
  /** The environment's name, for messages. */
  readonly environment: string;
  readonly python: string;
  readonly script: string;
  readonly cwd: string;
  /** The child's whole environment (an allow-list, built by the caller). */
  readonly env: Readonly<Record<string, string>>;
  readonly log: Logger;
}

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

interface Pending {
  readonly id: number;
  readonly onMessage: (message: WorkerMessage) => void;
  readonly resolve: (message: WorkerMessage) => void;
  readonly reject: (error: Error) => void;
}

const STDERR_LINES_KEPT = 20;

/**
 * One long-lived Python process speaking JSON lines (a request per line on stdin, messages on stdout),
 * serving one request at a time. It starts on first use; a request whose signal aborts ends the process,
 * and the next request starts a new one.
 */
export class PythonWorker {
  readonly #options: PythonWorkerOptions;
  #child: Child | null = null;
  #ready: Promise<void> | null = null;
  #pending: Pending | null = null;
  #queue: Promise<unknown> = Promise.resolve();
  #nextId = 1;
  #stderrTail: string[] = [];
  #closed = false;

  constructor(options: PythonWorkerOptions) {
    this.#options = options;
  }

  /** Sends `request` once every earlier request is answered; resolves with the worker's result message. */
  request(request: Record<string, unknown>, onMessage: (message: WorkerMessage) => void, signal: AbortSignal): Promise<WorkerMessage> {
    const turn = this.#queue.then(() => this.#send(request, onMessage, signal));
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  /** Whether the process is up (it starts on the first request). */
  isRunning(): boolean {
    return this.#child !== null;
  }

  /** Ends the process within `deadlineMs` (SIGTERM to its group, then SIGKILL); idempotent. */
  async close(deadlineMs = 5000): Promise<void> {
    this.#closed = true;
    await this.#stop(deadlineMs);
  }

  async #send(request: Record<string, unknown>, onMessage: (message: WorkerMessage) => void, signal: AbortSignal): Promise<WorkerMessage> {
    signal.throwIfAborted();
    if (this.#closed) throw new PythonEnvironmentError(this.#options.environment, 'worker is shut down');
    const child = await this.#started();
    const id = this.#nextId++;
    const stopOnAbort = (): void => { void this.#stop(2000); };
    signal.addEventListener('abort', stopOnAbort, { once: true });
    try {
      return await new Promise<WorkerMessage>((resolve, reject) => {
        this.#pending = { id, onMessage, resolve, reject };
        child.stdin.write(`${JSON.stringify({ ...request, id })}\n`);
      });
    } finally {
      signal.removeEventListener('abort', stopOnAbort);
      this.#pending = null;
      signal.throwIfAborted();
    }
  }

  #started(): Promise<Child> {
    const ready = this.#ready ?? this.#spawn();
    this.#ready = ready;
    return ready.then(() => {
      if (!this.#child) throw this.#failure('stopped while starting');
      return this.#child;
    });
  }

  #spawn(): Promise<void> {
    const { python, script, cwd, env, log } = this.#options;
    const child = spawn(python, ['-u', script], { cwd, env: { ...env }, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    this.#child = child;
    this.#stderrTail = [];
    createInterface({ input: child.stderr }).on('line', (line) => {
      this.#stderrTail.push(line);
      if (this.#stderrTail.length > STDERR_LINES_KEPT) this.#stderrTail.shift();
      log.debug({ line }, 'python worker output');
    });
    return new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        let message: WorkerMessage;
        try {
          message = JSON.parse(line) as WorkerMessage;
        } catch {
          log.debug({ line }, 'python worker output');
          return;
        }
        if (message.type === 'ready') {
          log.info({ pid: child.pid }, 'python worker ready');
          resolve();
          return;
        }
        const pending = this.#pending;
        if (pending?.id !== message.id) return;
        if (message.type === 'result') pending.resolve(message);
        else pending.onMessage(message);
      });
      child.on('error', (error) => { reject(this.#failure(`could not start (${error.message})`)); });
      child.on('exit', (code, signal) => {
        if (this.#child === child) {
          this.#child = null;
          this.#ready = null;
        }
        const error = this.#failure(`worker exited (${signal ?? `code ${String(code)}`})${this.#describeStderr()}`);
        reject(error);
        this.#pending?.reject(error);
        if (!this.#closed) log.warn({ code, signal }, 'python worker exited');
      });
    });
  }

  #failure(problem: string): PythonEnvironmentError {
    return new PythonEnvironmentError(this.#options.environment, problem);
  }

  #describeStderr(): string {
    const last = this.#stderrTail.filter((line) => line.trim() !== '').at(-1);
    return last === undefined ? '' : `: ${last.trim()}`;
  }

  async #stop(deadlineMs: number): Promise<void> {
    await stopProcessGroup(this.#child, deadlineMs);
  }
}
