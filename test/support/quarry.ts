import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { stringify, parse } from 'yaml';
import { readFileSync } from 'node:fs';
import { initProject } from '../../src/cli/init.ts';
import type { AppContext } from '../../src/context.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import { startPlatform } from '../../src/server/index.ts';
import { copyToPostgres, type Role } from '../../src/store/index.ts';
import { freshPostgresStore } from './postgres-store.ts';
import { TestClock } from './test-clock.ts';
import { copyInitialisedSupersetHome } from './superset-home.ts';
import { projectPaths } from '../../src/config/index.ts';
import { LOOPBACK_NETWORK } from './loopback-network.ts';
import { WarehouseReaders, withSandboxedReader, type DuckDBConnection } from '../../src/warehouse/index.ts';
import type { QuarryEvent } from '../../src/events/index.ts';
import type { WatcherProcess } from '../../src/watcher/index.ts';
import type { DocsServer } from '../../src/transform/index.ts';
import type { SupersetProcess } from '../../src/dashboard/index.ts';
import type { ScheduleIncidents } from '../../src/schedules/index.ts';
import type { AlertCenter, FreshnessMonitor } from '../../src/alerts/index.ts';

export const PASSWORDS: Record<Role, string> = {
  admin: 'admin-password-123',
  editor: 'editor-password-123',
  viewer: 'viewer-password-123',
};
export const EMAILS: Record<Role, string> = {
  admin: 'admin@test.local',
  editor: 'editor@test.local',
  viewer: 'viewer@test.local',
};

export interface RequestOptions {
  /** Log in as this role's user (cookie), or send no credentials. */
  as?: Role | 'anonymous';
  cookie?: string;
  apiKey?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body (undefined when the body is not JSON). */
  json: any;
}

export interface TestQuarry {
  readonly dir: string;
  readonly url: string;
  readonly ctx: AppContext;
  readonly app: FastifyInstance;
  readonly clock: TestClock;
  readonly watcher: WatcherProcess | undefined;
  readonly docsServer: DocsServer | undefined;
  readonly dashboard: SupersetProcess | undefined;
  readonly alerts: AlertCenter;
  readonly freshness: FreshnessMonitor;
  request(method: string, urlPath: string, options?: RequestOptions): Promise<TestResponse>;
  login(role: Role): Promise<string>;
  /** Resolves with the next event of that type; call it before the action that causes it. */
  nextEvent<T extends QuarryEvent['type']>(type: T, filter?: (event: Extract<QuarryEvent, { type: T }>) => boolean): Promise<Extract<QuarryEvent, { type: T }>>;
  /** Waits until no job is queued or running and the catalog has profiled what they changed. */
  jobsIdle(): Promise<void>;
  /** Runs a query on the lake through a sandboxed reader, as a dashboard would. */
  query(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
  /** Stops the platform and leaves the project in place, for a test that starts it again (`projectDir`). */
  stop(): Promise<void>;
  /** Stops the platform and starts it again over the same project, as a restart of the service does. */
  restart(): Promise<TestQuarry>;
}

export interface StartOptions {
  sourcesYaml?: string;
  /**
   * Merged over the generated project.yml, which lets sources and alerts reach this machine (where the tests'
   * fake APIs listen) unless `network` says otherwise.
   */
  projectConfig?: Record<string, unknown>;
  users?: readonly Role[];
  /** Extra environment variables (credentials the project's config names). */
  env?: Record<string, string>;
  /** Run the file watcher child, as `quarry start` does. */
  watcher?: boolean;
  /** Start transformations as `quarry start` does: parse, docs, staging models built after syncs. */
  transform?: boolean;
  /** Run the transformation-docs server (on a free port). */
  docsServer?: boolean;
  /** Run Superset (slow: a file shares one instance); off by default, so other tests never start it. */
  dashboard?: boolean;
  /** Let Superset initialise its home itself, as a first start does, instead of copying the run's initialised one. */
  freshDashboardHome?: boolean;
  /** Create the project as `quarry init --demo` does: sample files, models, dashboard, auto_transform. */
  demo?: boolean;
  /** Runs after the project is created and before the context opens (to add dbt models, say). */
  prepare?: (dir: string) => void | Promise<void>;
  /** The service's logger, for tests that check what it logs; silent otherwise. */
  log?: Logger;
  /** Start over this existing project (a restart) instead of a fresh one; close() then leaves it in place. */
  projectDir?: string;
  /** The clock (and timers) the platform runs on; a fresh one at the current time otherwise. */
  clock?: TestClock;
  /** Where schedules report runs they could not do. */
  scheduleIncidents?: ScheduleIncidents;
  /** bcrypt's work factor: the minimum unless the test is about what passwords cost (PASSWORD_COST). */
  passwordCost?: number;
}

/**
 * The project's platform store moved into a schema of its own in the local PostgreSQL, as `quarry store migrate`
 * does: for the files that run on the shared store (QUARRY_TEST_PLATFORM_STORE=postgres, vitest.config.ts).
 */
async function storeMovedToPostgres(dir: string): Promise<ReturnType<typeof freshPostgresStore>> {
  const place = freshPostgresStore();
  await copyToPostgres(projectPaths(dir).platformDb, place, () => undefined);
  return place;
}

/** bcrypt's minimum: a test that is not about passwords need not pay a quarter of a second a user and a login. */
export const TEST_PASSWORD_COST = 4;

/** A real Quarry over a fresh temp project, listening on a random loopback port. */
export async function startQuarry(options: StartOptions = {}): Promise<TestQuarry> {
  const restart = options.projectDir !== undefined;
  const dir = options.projectDir ?? await mkdtemp(path.join(tmpdir(), 'quarry-test-'));
  const env = { QUARRY_ADMIN_PASSWORD: PASSWORDS.admin, ...options.env };
  const passwordCost = options.passwordCost ?? TEST_PASSWORD_COST;
  if (!restart) {
    await initProject(dir, {
      name: 'Test project', organization: 'Test Org', adminEmail: EMAILS.admin, nonInteractive: true, demo: options.demo, passwordCost,
    }, env);
  }
  const projectFile = path.join(dir, '.quarry', 'project.yml');
  let sharedStore: ReturnType<typeof freshPostgresStore> | undefined;
  if (!restart) {
    const current = parse(readFileSync(projectFile, 'utf8')) as Record<string, unknown>;
    sharedStore = process.env.QUARRY_TEST_PLATFORM_STORE === 'postgres' ? await storeMovedToPostgres(dir) : undefined;
    const platform = sharedStore === undefined ? {} : { platform: { store: sharedStore.url, schema: sharedStore.schema } };
    await writeFile(projectFile, stringify(mergeDeep({ ...current, network: LOOPBACK_NETWORK, ...platform }, options.projectConfig ?? {})));
  }
  if (options.sourcesYaml !== undefined) await writeFile(path.join(dir, '.quarry', 'sources.yml'), options.sourcesYaml);
  if (!restart && options.dashboard === true && options.freshDashboardHome !== true) await copyInitialisedSupersetHome(projectPaths(dir).dashboardHome);
  await options.prepare?.(dir);
  const clock = options.clock ?? new TestClock();
  const platform = await startPlatform({
    projectDir: dir, env, now: clock.now, timer: clock, passwordCost, scheduleIncidents: options.scheduleIncidents, log: options.log ?? createLogger({ level: 'silent' }),
    host: '127.0.0.1', ports: { web: 0, dashboard: 0 },
    watcher: options.watcher === true, transform: options.transform === true,
    docsServer: options.docsServer === true, dashboard: options.dashboard === true ? 'run' : 'not_started', awaitUpstreams: true,
    beforeStart: async (ctx) => {
      if (restart) return;
      for (const role of options.users ?? ['editor', 'viewer'] as const) {
        if (role !== 'admin') await ctx.auth.addUser({ email: EMAILS[role], name: `Test ${role}`, role, password: PASSWORDS[role] });
      }
    },
  });
  const { ctx, app, watcher, docsServer, dashboard, alerts, freshness } = platform;
  const url = `http://127.0.0.1:${String(platform.port)}`;
  const cookies = new Map<Role, string>();

  const request = async (method: string, urlPath: string, requestOptions: RequestOptions = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...requestOptions.headers };
    const as = requestOptions.as ?? 'anonymous';
    if (as !== 'anonymous') {
      headers.cookie = await loginCached(as);
      headers['x-requested-with'] ??= 'XMLHttpRequest';
    }
    if (requestOptions.cookie !== undefined) headers.cookie = requestOptions.cookie;
    if (requestOptions.apiKey !== undefined) headers.authorization = `Bearer ${requestOptions.apiKey}`;
    let body: string | FormData | undefined;
    if (requestOptions.body instanceof FormData) {
      body = requestOptions.body;
    } else if (requestOptions.body !== undefined) {
      body = typeof requestOptions.body === 'string' ? requestOptions.body : JSON.stringify(requestOptions.body);
      headers['content-type'] ??= 'application/json';
    }
    let response = await fetch(`${url}${urlPath}`, { method, headers, body, redirect: 'manual' });
    if (response.status === 401 && as !== 'anonymous') {
      // The cached session expired (a test moved the clock): sign in again once.
      cookies.delete(as);
      headers.cookie = await loginCached(as);
      response = await fetch(`${url}${urlPath}`, { method, headers, body, redirect: 'manual' });
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  };

  const login = async (role: Role): Promise<string> => {
    const response = await fetch(`${url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAILS[role], password: PASSWORDS[role] }),
    });
    if (response.status !== 200) throw new Error(`login as ${role} failed: ${String(response.status)} ${await response.text()}`);
    return sessionCookieOf(response.headers);
  };

  const loginCached = async (role: Role): Promise<string> => {
    const cached = cookies.get(role);
    if (cached !== undefined) return cached;
    const cookie = await login(role);
    cookies.set(role, cookie);
    return cookie;
  };

  const nextEvent = <T extends QuarryEvent['type']>(type: T, filter?: (event: Extract<QuarryEvent, { type: T }>) => boolean) =>
    new Promise<Extract<QuarryEvent, { type: T }>>((resolve) => {
      const unsubscribe = ctx.events.subscribe((event) => {
        if (event.type !== type) return;
        const typed = event as Extract<QuarryEvent, { type: T }>;
        if (filter && !filter(typed)) return;
        unsubscribe();
        resolve(typed);
      });
    });

  // Sandboxed readers kept open while the service runs, on the latest snapshot: a reader opened for each query checks
  // the lake's extensions' signatures each time (a quarter of a second), most of a file's time in tests that count rows.
  let readers: WarehouseReaders | undefined = new WarehouseReaders(ctx.lake);
  const stopPlatform = async (): Promise<void> => {
    readers?.close();
    readers = undefined;
    await platform.close();
  };
  const query = async (sql: string): Promise<Record<string, unknown>[]> => {
    const read = async (connection: DuckDBConnection): Promise<Record<string, unknown>[]> => {
      const rows = (await connection.runAndReadAll(sql)).getRowObjects();
      return rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, typeof value === 'bigint' ? Number(value) : value])));
    };
    return readers === undefined ? withSandboxedReader(ctx.lake, read) : readers.withReader(read, { freshSnapshot: true });
  };

  return {
    dir, url, ctx, app, clock, watcher, docsServer, dashboard, alerts, freshness, request, login, nextEvent, query,
    async jobsIdle() {
      await ctx.jobs.idle();
      await ctx.profiler.idle();
    },
    async close() {
      await stopPlatform();
      if (!restart) await rm(dir, { recursive: true, force: true });
      await sharedStore?.drop();
    },
    stop: stopPlatform,
    async restart() {
      await stopPlatform();
      const again = await startQuarry({ ...options, projectDir: dir, sourcesYaml: undefined, projectConfig: undefined, prepare: undefined, clock: undefined });
      // The project was made for this Quarry: whoever restarts it leaves it to be removed with the last one.
      return restart ? again : { ...again, close: async () => { await again.close(); await rm(dir, { recursive: true, force: true }); } };
    },
  };
}

/** `svc_session=<token>` from a response's Set-Cookie headers. */
export function sessionCookieOf(headers: Headers): string {
  const cookie = headers.getSetCookie().find((value) => value.startsWith('svc_session='));
  if (cookie === undefined) throw new Error('no svc_session cookie set');
  return cookie.split(';')[0] ?? '';
}

function mergeDeep(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = merged[key];
    merged[key] = isPlainObject(current) && isPlainObject(value) ? mergeDeep(current, value) : value;
  }
  return merged;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
