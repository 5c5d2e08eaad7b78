import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Logger } from '../logger.ts';
import { stopProcessGroup } from '../python/index.ts';

const MAX_RESTART_DELAY_MS = 30_000;
const RESTARTS_BEFORE_GIVING_UP = 5;
const LISTENING = /Serving HTTP on \S+ port (\d+)/;

export interface DocsServerOptions {
  readonly python: string;
  /** The published docs site: index.html, manifest.json, catalog.json. */
  readonly directory: string;
  /** 0 picks a free port; a taken port falls back to a free one. */
  readonly port: number;
  readonly log: Logger;
}

export interface DocsServerStatus {
  readonly state: 'starting' | 'running' | 'stopped' | 'failed';
  readonly pid: number | null;
}

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

const SERVER_SCRIPT = path.join(import.meta.dirname, 'docs_server.py');

/**
 * Owns the transformation-docs site's upstream: a static file server on loopback over the published
 * docs site (Python's http.server, from the dbt environment), restarted with backoff when it exits.
 */
export class DocsServer {
  readonly #options: DocsServerOptions;
  readonly #recentExits: number[] = [];
  #child: Child | null = null;
  #origin: string | undefined;
  #state: DocsServerStatus['state'] = 'stopped';
  #port: number;
  #stopping = false;
  #restartTimer: NodeJS.Timeout | null = null;
  #ready: Promise<void> = Promise.resolve();

  constructor(options: DocsServerOptions) {
    this.#options = options;
    this.#port = options.port;
  }

  start(): void {
    this.#stopping = false;
    mkdirSync(this.#options.directory, { recursive: true });
    // stdin stays open: the server exits when it closes, so a Quarry killed with SIGKILL leaves no server behind.
    const child = spawn(this.#options.python, ['-u', SERVER_SCRIPT, this.#options.directory, String(this.#port)], {
      env: { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' },
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.#child = child;
    this.#state = 'starting';
    let addressTaken = false;
    this.#ready = new Promise((resolve) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        const port = LISTENING.exec(line)?.[1];
        if (port === undefined) return;
        this.#origin = `http://127.0.0.1:${port}`;
        this.#state = 'running';
        this.#options.log.info({ port: Number(port), pid: child.pid }, 'transformation-docs server listening');
        resolve();
      });
      child.on('exit', () => { resolve(); });
    });
    createInterface({ input: child.stderr }).on('line', (line) => {
      if (line.includes('Address already in use')) addressTaken = true;
      this.#options.log.debug({ line }, 'docs server output');
    });
    child.on('error', (error) => { this.#options.log.warn({ err: error }, 'the transformation-docs server could not start'); });
    child.on('exit', (code, signal) => { this.#onExit(child, code, signal, addressTaken); });
  }

  /** Resolves once the server listens (or has exited). */
  whenReady(): Promise<void> {
    return this.#ready;
  }

  /** `http://127.0.0.1:<port>` while the server runs, else undefined. */
  origin(): string | undefined {
    return this.#state === 'running' ? this.#origin : undefined;
  }

  status(): DocsServerStatus {
    return { state: this.#state, pid: this.#state === 'running' ? this.#child?.pid ?? null : null };
  }

  /** Ends the server within `deadlineMs` (SIGTERM to its group, then SIGKILL); idempotent. */
  async stop(deadlineMs = 5000): Promise<void> {
    this.#stopping = true;
    if (this.#restartTimer) clearTimeout(this.#restartTimer);
    const child = this.#child;
    this.#state = 'stopped';
    await stopProcessGroup(child, deadlineMs);
  }

  #onExit(child: Child, code: number | null, signal: NodeJS.Signals | null, addressTaken: boolean): void {
    if (this.#stopping || child !== this.#child) return;
    this.#state = 'stopped';
    if (addressTaken && this.#port !== 0) {
      this.#options.log.warn({ port: this.#port }, 'the transformation-docs port is taken; using a free one');
      this.#port = 0;
      this.start();
      return;
    }
    const now = Date.now();
    this.#recentExits.push(now);
    while (this.#recentExits.length > 0 && (this.#recentExits[0] ?? now) < now - 60_000) this.#recentExits.shift();
    if (this.#recentExits.length >= RESTARTS_BEFORE_GIVING_UP) {
      this.#state = 'failed';
      this.#options.log.error({ code, signal }, 'the transformation-docs server keeps exiting; it is stopped until the next start');
      return;
    }
    const delayMs = Math.min(MAX_RESTART_DELAY_MS, 1000 * 2 ** (this.#recentExits.length - 1));
    this.#options.log.warn({ code, signal, delayMs }, 'the transformation-docs server exited; restarting');
    this.#restartTimer = setTimeout(() => { this.start(); }, delayMs);
  }
}
