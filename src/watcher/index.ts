import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { nodeChild, RestartPolicy, stopChild } from '../child-process/index.ts';
import type { ProjectConfig } from '../config/index.ts';
import type { Logger } from '../logger.ts';
import type { SourceConfig } from '../sources/config/index.ts';

const CHILD_SCRIPT = path.join(import.meta.dirname, 'watcher-child.ts');

export interface WatchTarget {
  readonly source: string;
  readonly directory: string;
  readonly pattern: string;
}

export interface WatcherStatus {
  readonly running: boolean;
  readonly pid: number | null;
  readonly state: 'running' | 'stopped' | 'failed';
}

export interface WatcherOptions {
  readonly targets: readonly WatchTarget[];
  readonly config: ProjectConfig['watcher'];
  readonly log: Logger;
  /** Called once per source after its files have been quiet for `debounce_seconds`. */
  readonly onSourceChanged: (source: string) => void;
}

/** Owns the watcher child: start, stop with a deadline, restart with backoff, and a debounce per source. */
export class WatcherProcess {
  readonly #options: WatcherOptions;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #restarts = new RestartPolicy();
  #child: ChildProcess | null = null;
  #state: WatcherStatus['state'] = 'stopped';
  #stopping = false;
  #ready: Promise<void> = Promise.resolve();
  #markReady: () => void = () => undefined;

  constructor(options: WatcherOptions) {
    this.#options = options;
  }

  start(): void {
    this.#stopping = false;
    const node = nodeChild(CHILD_SCRIPT, [JSON.stringify(this.#options.targets), JSON.stringify(this.#options.config.patterns)]);
    // A process group of its own: Ctrl-C in the terminal reaches the service, which stops it, not the watcher
    // first (which would be taken for a crash). It ends when its channel to the service closes.
    const child = spawn(node.command, node.args, {
      env: node.env,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.#child = child;
    this.#state = 'running';
    this.#ready = new Promise((resolve) => { this.#markReady = resolve; });
    child.stderr?.on('data', (chunk: Buffer) => { this.#options.log.warn({ output: chunk.toString().slice(0, 500) }, 'watcher wrote to stderr'); });
    child.on('message', (message: { type: string; source?: string; message?: string }) => {
      if (message.type === 'changed' && message.source !== undefined) this.#debounce(message.source);
      if (message.type === 'ready') this.#markReady();
      if (message.type === 'error') this.#options.log.warn({ reason: message.message }, 'watcher error');
    });
    child.on('exit', (code, signal) => { this.#onExit(child, code, signal); });
  }

  /** Resolves once the current child has scanned its directories and reports changes. */
  whenReady(): Promise<void> {
    return this.#ready;
  }

  status(): WatcherStatus {
    return { running: this.#state === 'running', pid: this.#state === 'running' ? this.#child?.pid ?? null : null, state: this.#state };
  }

  /** Ends the child within `deadlineMs` (SIGTERM, then SIGKILL). */
  async stop(deadlineMs = 5000): Promise<void> {
    this.#stopping = true;
    this.#restarts.cancel();
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#state = 'stopped';
    await stopChild(this.#child, deadlineMs);
  }

  #debounce(source: string): void {
    const existing = this.#timers.get(source);
    if (existing) clearTimeout(existing);
    this.#timers.set(source, setTimeout(() => {
      this.#timers.delete(source);
      this.#options.onSourceChanged(source);
    }, this.#options.config.debounce_seconds * 1000));
  }

  #onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#stopping || child !== this.#child) return;
    const delayMs = this.#restarts.restartLater(() => { this.start(); });
    if (delayMs === undefined) {
      this.#state = 'failed';
      this.#options.log.error({ code, signal }, 'the file watcher keeps exiting; it is stopped. Run "quarry start" in a terminal to see why');
      return;
    }
    this.#state = 'stopped';
    this.#options.log.warn({ code, signal, delayMs }, 'the file watcher exited; restarting');
  }
}

/** The directories (absolute) and patterns of the enabled file sources. */
export function watchTargets(sources: readonly SourceConfig[], locate: (source: SourceConfig) => { directory: string; pattern: string } | undefined): WatchTarget[] {
  return sources.filter((source) => source.enabled).flatMap((source) => {
    const location = locate(source);
    return location === undefined ? [] : [{ source: source.name, ...location }];
  });
}
