import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { describeError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { confined } from '../os/index.ts';
import { RestartPolicy, signalProcessGroup, stopProcessGroup } from '../child-process/index.ts';
import { DUCKDB_EXTENSIONS_DIR, lakeChildEnv, lakeFolders, READER_SANDBOX_PYTHON_PATH, readerLocation, type LakeLocation } from '../warehouse/index.ts';
import { availablePort } from './loopback-port.ts';
import { endOrphanedServer } from './orphaned-server.ts';

const run = promisify(execFile);
const CONFIG_FILE = path.join(import.meta.dirname, 'superset_config.py');
const SERVICE_ACCOUNT_SCRIPT = path.join(import.meta.dirname, 'create_service_account.py');
const STARTUP_DEADLINE_MS = 180_000;
const HEALTH_INTERVAL_MS = 10_000;
const HEALTH_FAILURES_BEFORE_RESTART = 3;

/**
 * The most memory each process of the dashboard tool may hold (RLIMIT_DATA): SQL Lab and charts run users' SQL on
 * its DuckDB reader, which builds some values outside its memory limit, so a query building too many fails with
 * DuckDB's out of memory error there instead of taking the machine's memory. Idle, its worker holds about 0.4 GB;
 * after such a query, DuckDB's allocator keeps much of what it took, up to this cap.
 */
export const DASHBOARD_PROCESS_MEMORY = 4 * 1024 ** 3;
/** The account Quarry provisions users with, over Superset's REST API. */
export const SERVICE_ACCOUNT = 'quarry_service';

export interface SupersetProcessOptions {
  /** The bin/ folder of the managed superset environment. */
  readonly binDir: string;
  /** Superset's home inside the project: metadata DB, secret key, sessions. */
  readonly home: string;
  /** The lake every DuckDB connection is forced onto, through the reader sandbox. */
  readonly lake: LakeLocation;
  /** 0 picks a free port. */
  readonly port: number;
  readonly https: boolean;
  readonly baseEnv: Readonly<Record<string, string>>;
  readonly log: Logger;
}

export type SupersetState = 'starting' | 'running' | 'stopped' | 'failed';

/**
 * Owns the Superset child: initialises its home on first start (metadata DB, secret key, service
 * account), runs gunicorn on loopback under /dashboard, health-checks it, restarts it with backoff
 * when it dies, and stops its process group with a deadline.
 */
export class SupersetProcess {
  readonly #options: SupersetProcessOptions;
  /** Shared with Superset only through its environment; the proxy sends it with every request. */
  readonly proxySecret: string = randomBytes(32).toString('hex');
  readonly #restarts = new RestartPolicy();
  #abort = new AbortController();
  #child: ChildProcess | null = null;
  #port = 0;
  #state: SupersetState = 'stopped';
  #healthTimer: NodeJS.Timeout | null = null;
  #ready: Promise<void> = Promise.resolve();
  readonly #runningListeners = new Set<() => void>();

  constructor(options: SupersetProcessOptions) {
    this.#options = options;
  }

  /** Starts (initialising first if needed); whenReady() resolves once it answers its health check or gave up. */
  start(): void {
    this.#abort = new AbortController();
    this.#state = 'starting';
    this.#ready = this.#launch(this.#abort.signal).catch((error: unknown) => {
      if (this.#abort.signal.aborted) return;
      // A gunicorn that never answered its health check must not hold the port for the next attempt.
      const child = this.#child;
      if (child !== null && child.exitCode === null && child.signalCode === null) signalProcessGroup(child, 'SIGKILL');
      this.#restartLater({ reason: describeError(error) }, 'the dashboard tool could not start');
    });
  }

  whenReady(): Promise<void> {
    return this.#ready;
  }

  /** What a first start does before gunicorn runs: the metadata DB, the secret key and the service account. */
  async initialiseHome(signal: AbortSignal): Promise<void> {
    await this.#initialise(this.#environment(), signal);
  }

  /** Calls `listener` each time Superset starts answering (first start and every restart); returns the unsubscribe. */
  onRunning(listener: () => void): () => void {
    this.#runningListeners.add(listener);
    return () => { this.#runningListeners.delete(listener); };
  }

  /** A file for what Quarry records about Superset's metadata DB: removed with it when that DB is built anew. */
  stateFile(name: string): string {
    return path.join(this.#stateDir(), name);
  }

  #stateDir(): string {
    return path.join(this.#options.home, 'metadata-state');
  }

  /** `http://127.0.0.1:<port>` while Superset answers, else undefined. */
  origin(): string | undefined {
    return this.#state === 'running' ? `http://127.0.0.1:${String(this.#port)}` : undefined;
  }

  status(): { state: SupersetState; pid: number | null } {
    return { state: this.#state, pid: this.#state === 'running' ? this.#child?.pid ?? null : null };
  }

  /** The service account's password (created at initialisation), for REST provisioning. */
  servicePassword(): string {
    return readFileSync(path.join(this.#options.home, 'service-account.password'), 'utf8').trim();
  }

  /** Ends Superset within `deadlineMs` (SIGTERM to its group, then SIGKILL); idempotent. */
  async stop(deadlineMs = 10_000): Promise<void> {
    this.#abort.abort();
    this.#restarts.cancel();
    if (this.#healthTimer) clearInterval(this.#healthTimer);
    this.#state = 'stopped';
    await this.#ready;
    await stopProcessGroup(this.#child, deadlineMs);
  }

  async #launch(signal: AbortSignal): Promise<void> {
    const env = this.#environment();
    await this.#initialise(env, signal);
    const pidFile = path.join(this.#options.home, 'gunicorn.pid');
    await endOrphanedServer(pidFile, this.#options.home, this.#options.log);
    this.#port = await availablePort(this.#options.port);
    if (this.#options.port !== 0 && this.#port !== this.#options.port) {
      this.#options.log.warn({ configured: this.#options.port, port: this.#port }, 'the dashboard port is taken; using a free one (Quarry proxies it at /dashboard/ either way)');
    }
    // Each of its processes may hold DASHBOARD_PROCESS_MEMORY, and sees the lake's data folder read-only where the
    // machine allows; the pid is gunicorn's.
    const gunicorn = { command: path.join(this.#options.binDir, 'gunicorn'), args: [
      '-w', '1', '--threads', '4', '-k', 'gthread',
      // Longer than Node's 5 s idle keep-alive, else the proxy reuses sockets gunicorn has closed (ECONNRESET).
      '--keep-alive', '75',
      // gunicorn 27's default control socket is one path per OS user: two instances would collide.
      '--no-control-socket',
      '--pid', pidFile, '--timeout', '120', '-b', `127.0.0.1:${String(this.#port)}`, 'superset.app:create_app()',
    ] };
    const { command, args } = confined(gunicorn, { memory: DASHBOARD_PROCESS_MEMORY, readOnly: lakeFolders(this.#options.lake) });
    const child = spawn(command, args, { env, cwd: this.#options.home, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child = child;
    const log = this.#options.log;
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => { log.debug({ line }, 'superset output'); });
    }
    child.on('error', (error) => { log.warn({ err: error }, 'the dashboard tool could not be spawned'); });
    child.on('exit', (code, exitSignal) => { this.#onExit(child, code, exitSignal); });
    await this.#awaitHealthy(child, signal);
    this.#state = 'running';
    log.info({ port: this.#port, pid: child.pid }, 'dashboard tool listening');
    for (const listener of this.#runningListeners) listener();
    this.#healthTimer = setInterval(() => { void this.#checkHealth(child); }, HEALTH_INTERVAL_MS);
    this.#healthTimer.unref();
  }

  #environment(): Record<string, string> {
    const { home, binDir, baseEnv, lake, https } = this.#options;
    mkdirSync(path.join(home, 'sessions'), { recursive: true, mode: 0o700 });
    return {
      ...baseEnv,
      PATH: `${binDir}:${baseEnv.PATH ?? '/usr/bin:/bin'}`,
      SUPERSET_HOME: home,
      SUPERSET_CONFIG_PATH: CONFIG_FILE,
      SUPERSET_SECRET_KEY: readOrCreateSecret(path.join(home, 'secret.key')),
      QUARRY_PROXY_SECRET: this.proxySecret,
      // Superset only reads: it logs in to a PostgreSQL catalog as the reader role.
      ...lakeChildEnv(readerLocation(lake, 'quarry-dashboard')),
      QUARRY_DUCKDB_EXTENSIONS: DUCKDB_EXTENSIONS_DIR,
      // superset_config.py opens the warehouse through reader_sandbox.py, the sandbox every reader shares.
      PYTHONPATH: READER_SANDBOX_PYTHON_PATH,
      QUARRY_HTTPS: https ? '1' : '0',
      PYTHONDONTWRITEBYTECODE: '1',
    };
  }

  /** `db upgrade` and `init` once per Superset environment (the env's folder name carries its lock hash) and metadata DB. */
  async #initialise(env: Record<string, string>, signal: AbortSignal): Promise<void> {
    const stamp = path.join(this.#options.home, 'initialized');
    const build = path.basename(realpathSync(path.dirname(this.#options.binDir)));
    // A metadata DB deleted (or not restored) since is built again.
    const initialised = existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === build && existsSync(path.join(this.#options.home, 'superset.db'));
    if (initialised) return;
    if (!existsSync(path.join(this.#options.home, 'superset.db'))) rmSync(this.#stateDir(), { recursive: true, force: true });
    const superset = path.join(this.#options.binDir, 'superset');
    const options = { env, cwd: this.#options.home, signal };
    this.#options.log.info('initialising the dashboard tool (first start takes about half a minute)');
    await runStep('superset db upgrade', superset, ['db', 'upgrade'], options);
    await runStep('superset init', superset, ['init'], options);
    const password = readOrCreateSecret(path.join(this.#options.home, 'service-account.password'));
    await runStep('creating the service account', path.join(this.#options.binDir, 'python'), [SERVICE_ACCOUNT_SCRIPT, SERVICE_ACCOUNT], {
      ...options, env: { ...env, QUARRY_SERVICE_PASSWORD: password },
    });
    writeFileSync(stamp, `${build}\n`);
  }

  async #awaitHealthy(child: ChildProcess, signal: AbortSignal): Promise<void> {
    const deadline = Date.now() + STARTUP_DEADLINE_MS;
    while (Date.now() < deadline) {
      signal.throwIfAborted();
      if (child.exitCode !== null || child.signalCode !== null) throw new Error('Superset exited while starting');
      if (await this.#isHealthy()) return;
      await delay(250, undefined, { signal });
    }
    throw new Error('Superset did not answer its health check in time');
  }

  async #isHealthy(): Promise<boolean> {
    try {
      const response = await fetch(`http://127.0.0.1:${String(this.#port)}/dashboard/health`, { signal: AbortSignal.timeout(5000) });
      await response.body?.cancel();
      return response.status === 200;
    } catch {
      return false;
    }
  }

  #healthFailures = 0;
  async #checkHealth(child: ChildProcess): Promise<void> {
    if (child !== this.#child || this.#state !== 'running') return;
    if (await this.#isHealthy()) {
      this.#healthFailures = 0;
      return;
    }
    this.#healthFailures++;
    if (this.#healthFailures >= HEALTH_FAILURES_BEFORE_RESTART) {
      this.#options.log.warn('the dashboard tool stopped answering; restarting it');
      this.#healthFailures = 0;
      signalProcessGroup(child, 'SIGKILL'); // the exit handler restarts it
    }
  }

  #onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#abort.signal.aborted || child !== this.#child) return;
    if (this.#healthTimer) clearInterval(this.#healthTimer);
    // A child that dies while starting is reported by #launch; this handles the running one.
    if (this.#state !== 'running') return;
    this.#restartLater({ code, signal }, 'the dashboard tool exited');
  }

  /** Starts it again after a backoff, unless it is in a restart loop. */
  #restartLater(details: Record<string, unknown>, what: string): void {
    this.#state = 'stopped';
    const delayMs = this.#restarts.restartLater(() => { this.start(); });
    if (delayMs === undefined) {
      this.#state = 'failed';
      this.#options.log.error({ ...details, home: this.#options.home }, `${what}, again; it is stopped until the next start (run \`superset\` from its environment with SUPERSET_HOME set to see why)`);
      return;
    }
    this.#options.log.warn({ ...details, delayMs }, `${what}; starting it again`);
  }
}

/**
 * Runs one initialisation step; a failure says which step, its exit code and the end of its stderr,
 * never its arguments or environment (the error of execFile carries the whole command line).
 */
async function runStep(step: string, file: string, args: readonly string[], options: { env: Record<string, string>; cwd: string; signal: AbortSignal }): Promise<void> {
  try {
    await run(file, args, { ...options, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { code, stderr } = error as { code?: unknown; stderr?: unknown };
    const tail = typeof stderr === 'string' ? stderr.trim().split('\n').slice(-3).join(' | ').slice(0, 500) : '';
    throw new Error(`${step} failed (exit ${String(code)})${tail === '' ? '' : `: ${tail}`}`);
  }
}

function readOrCreateSecret(file: string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  return secret;
}
