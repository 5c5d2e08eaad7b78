import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { ProjectPaths } from '../config/index.ts';
import type { Logger } from '../logger.ts';
import { pythonExecutableOrLog } from '../python/index.ts';
import { docsSiteDir } from './docs-site.ts';
import { RestartPolicy, stopProcessGroup } from '../child-process/index.ts';

const LISTENING = 'Serving HTTP on unix socket';

export interface DocsServerOptions {
  readonly python: string;
  /** The published docs site: index.html, manifest.json, catalog.json. */
  readonly directory: string;
  /** Where the server listens: a Unix socket (mode 0600) in the project's run folder, not a port any local user can reach. */
  readonly socketPath: string;
  readonly log: Logger;
}

export interface DocsServerStatus {
  readonly state: 'starting' | 'running' | 'stopped' | 'failed';
  readonly pid: number | null;
}

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

const SERVER_SCRIPT = path.join(import.meta.dirname, 'docs_server.py');

/**
 * Owns the transformation-docs site's upstream: a static file server on a Unix socket over the published
 * docs site (Python's http.server, from the dbt environment), restarted with backoff when it exits.
 */
export class DocsServer {
  readonly #options: DocsServerOptions;
  readonly #restarts = new RestartPolicy();
  #child: Child | null = null;
  #state: DocsServerStatus['state'] = 'stopped';
  #stopping = false;
  #ready: Promise<void> = Promise.resolve();

  constructor(options: DocsServerOptions) {
    this.#options = options;
  }

  start(): void {
    this.#stopping = false;
    mkdirSync(this.#options.directory, { recursive: true });
    mkdirSync(path.dirname(this.#options.socketPath), { recursive: true, mode: 0o700 });
    // stdin stays open: the server exits when it closes, so a Quarry killed with SIGKILL leaves no server behind.
    const child = spawn(this.#options.python, ['-u', SERVER_SCRIPT, this.#options.directory, this.#options.socketPath], {
      env: { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' },
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.#child = child;
    this.#state = 'starting';
    this.#ready = new Promise((resolve) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (!line.startsWith(LISTENING)) return;
        this.#state = 'running';
        this.#options.log.info({ socket: this.#options.socketPath, pid: child.pid }, 'transformation-docs server listening');
        resolve();
      });
      child.on('exit', () => { resolve(); });
    });
    createInterface({ input: child.stderr }).on('line', (line) => {
      this.#options.log.debug({ line }, 'docs server output');
    });
    child.on('error', (error) => { this.#options.log.warn({ err: error }, 'the transformation-docs server could not start'); });
    child.on('exit', (code, signal) => { this.#onExit(child, code, signal); });
  }

  /** Resolves once the server listens (or has exited). */
  whenReady(): Promise<void> {
    return this.#ready;
  }

  /** Where the server listens (or will). */
  get socketPath(): string {
    return this.#options.socketPath;
  }

  /** The socket path while the server runs, else undefined. */
  socket(): string | undefined {
    return this.#state === 'running' ? this.#options.socketPath : undefined;
  }

  status(): DocsServerStatus {
    return { state: this.#state, pid: this.#state === 'running' ? this.#child?.pid ?? null : null };
  }

  /** Ends the server within `deadlineMs` (SIGTERM to its group, then SIGKILL); idempotent. */
  async stop(deadlineMs = 5000): Promise<void> {
    this.#stopping = true;
    this.#restarts.cancel();
    const child = this.#child;
    this.#state = 'stopped';
    await stopProcessGroup(child, deadlineMs);
  }

  #onExit(child: Child, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#stopping || child !== this.#child) return;
    this.#state = 'stopped';
    const delayMs = this.#restarts.restartLater(() => { this.start(); });
    if (delayMs === undefined) {
      this.#state = 'failed';
      this.#options.log.error({ code, signal }, 'the transformation-docs server keeps exiting; it is stopped until the next start');
      return;
    }
    this.#options.log.warn({ code, signal, delayMs }, 'the transformation-docs server exited; restarting');
  }
}

/** Starts the docs site's upstream over the project's published docs site; undefined (logged) when the dbt environment is missing. */
export function startDocsServer(options: {
  paths: ProjectPaths; log: Logger; pythonEnvironmentsDir?: string;
}): DocsServer | undefined {
  const python = pythonExecutableOrLog('dbt', options.pythonEnvironmentsDir, options.log, 'the transformation-docs site is unavailable');
  if (python === undefined) return undefined;
  const server = new DocsServer({
    python, directory: docsSiteDir(options.paths), socketPath: options.paths.docsSocket, log: options.log,
  });
  server.start();
  return server;
}

