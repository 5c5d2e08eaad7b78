import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { ProjectConfig, SourceConfig } from '../config/index.ts';
import type { Logger } from '../logger.ts';

const CHILD_SCRIPT = path.join(import.meta.dirname, 'watcher-child.ts');
const MAX_RESTART_DELAY_MS = 30_000;
const RESTARTS_BEFORE_GIVING_UP = 5;

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
  readonly #recentExits: number[] = [];
  #child: ChildProcess | null = null;
  #state: WatcherStatus['state'] = 'stopped';
  #stopping = false;
  #restartTimer: NodeJS.Timeout | null = null;
  #ready: Promise<void> = Promise.resolve();
  #markReady: () => void = () => undefined;

  constructor(options: WatcherOptions) {
    this.#options = options;
  }

  start(): void {
    this.#stopping = false;
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', CHILD_SCRIPT, JSON.stringify(this.#options.targets), JSON.stringify(this.#options.config.patterns)], {
      env: { PATH: process.env.PATH ?? '' },
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
    if (this.#restartTimer) clearTimeout(this.#restartTimer);
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    const child = this.#child;
    this.#state = 'stopped';
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => { child.once('exit', () => { resolve(); }); });
    child.kill('SIGTERM');
    const killer = setTimeout(() => { child.kill('SIGKILL'); }, deadlineMs);
    await exited;
    clearTimeout(killer);
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
    const now = Date.now();
    this.#recentExits.push(now);
    while (this.#recentExits.length > 0 && (this.#recentExits[0] ?? now) < now - 60_000) this.#recentExits.shift();
    if (this.#recentExits.length >= RESTARTS_BEFORE_GIVING_UP) {
      this.#state = 'failed';
      this.#options.log.error({ code, signal }, 'the file watcher keeps exiting; it is stopped. Run "quarry start" in a terminal to see why');
      return;
    }
    const delayMs = Math.min(MAX_RESTART_DELAY_MS, 1000 * 2 ** (this.#recentExits.length - 1));
    this.#state = 'stopped';
    this.#options.log.warn({ code, signal, delayMs }, 'the file watcher exited; restarting');
    this.#restartTimer = setTimeout(() => { this.start(); }, delayMs);
  }
}

/** The directories (absolute) and patterns of the enabled file sources. */
export function watchTargets(sources: readonly SourceConfig[], locate: (source: SourceConfig) => { directory: string; pattern: string } | undefined): WatchTarget[] {
  return sources.filter((source) => source.enabled).flatMap((source) => {
    const location = locate(source);
    return location === undefined ? [] : [{ source: source.name, ...location }];
  });
}
