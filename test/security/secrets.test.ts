import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initProject } from '../../src/cli/init.ts';
import { addSource } from '../../src/cli/source-add.ts';
import type { AppContext } from '../../src/context.ts';
import { createLogger } from '../../src/logger.ts';
import { startPlatform } from '../../src/server/index.ts';
import { queryLake } from '../support/duckdb-query.ts';
import { allowLoopback } from '../support/loopback-network.ts';
import { basicOf, bearerOf, records, startFakeApi, type FakeApi } from '../support/fake-api.ts';

/** Every kind of secret a project holds, each distinctive enough that a substring match means a leak. */
const SECRETS = {
  adminPassword: 'Admin-Seeded-Passw0rd-4417',
  userPassword: 'User-Seeded-Passw0rd-9023',
  wrongPassword: 'Wrong-Seeded-Passw0rd-5561',
  envBearerToken: 'env-bearer-token-71c0e4a9',
  envBasicPassword: 'env-basic-password-3be27f',
  oauthAccessToken: 'ya29.seeded-oauth-access-8d1f',
  oauthRefreshToken: '1//seeded-oauth-refresh-c47a',
} as const;
const ADMIN = 'admin@security.test';

/**
 * A Quarry like the test harness's, but logging at debug level into a buffer, so the pino output
 * itself can be searched for secrets.
 */
interface LoggedQuarry {
  readonly dir: string;
  readonly url: string;
  readonly ctx: AppContext;
  readonly app: FastifyInstance;
  readonly logOutput: () => string;
  close(): Promise<void>;
}

async function startLoggedQuarry(api: FakeApi): Promise<LoggedQuarry> {
  const dir = await mkdtemp(path.join(tmpdir(), 'quarry-security-'));
  await initProject(dir, { name: 'Security', organization: 'Test Org', adminEmail: ADMIN, nonInteractive: true }, { QUARRY_ADMIN_PASSWORD: SECRETS.adminPassword });
  await allowLoopback(dir);
  // The credentials go in as a user would put them: through `quarry source add`, which writes .env.
  await addSource({
    project: dir, type: 'rest_api', name: 'shop', nonInteractive: true,
    set: [`base_url=${api.url}/v1`, 'auth_token_env=SHOP_TOKEN', 'endpoints.0.path=/items', 'endpoints.0.data_selector=data', 'endpoints.0.primary_key=id'],
    secret: [`SHOP_TOKEN=${SECRETS.envBearerToken}`],
  }, {});
  await addSource({
    project: dir, type: 'rest_api', name: 'people', nonInteractive: true,
    set: [`base_url=${api.url}/v1`, 'auth_type=basic', 'basic_username_env=PEOPLE_USER', 'basic_password_env=PEOPLE_PASSWORD', 'endpoints.0.path=/people'],
    secret: ['PEOPLE_USER=ann', `PEOPLE_PASSWORD=${SECRETS.envBasicPassword}`],
  }, {});
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  const platform = await startPlatform({
    projectDir: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, log: createLogger({ level: 'debug', destination }),
    host: '127.0.0.1', ports: { web: 0 }, watcher: false, transform: false, docsServer: false, dashboard: 'not_started',
  });
  const { ctx, app } = platform;
  return {
    dir, ctx, app, url: `http://127.0.0.1:${String(platform.port)}`,
    logOutput: () => chunks.join(''),
    async close() {
      await platform.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Every regular file below `root`, symlinks not followed. */
function filesBelow(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .map((entry) => path.join(root, entry))
    .filter((file) => statSync(file, { throwIfNoEntry: false })?.isFile() === true);
}

describe('secrets stay secret', () => {
  let api: FakeApi;
  let quarry: LoggedQuarry;
  /** Every response body and header block the test saw, except the two that exist to show a secret once. */
  const responses: string[] = [];
  const apiKeys: string[] = [];
  let totpSecret = '';

  const call = async (method: string, urlPath: string, options: { cookie?: string; apiKey?: string; body?: unknown; showsSecret?: boolean } = {}) => {
    const headers: Record<string, string> = { 'x-requested-with': 'XMLHttpRequest' };
    if (options.cookie !== undefined) headers.cookie = options.cookie;
    if (options.apiKey !== undefined) headers.authorization = `Bearer ${options.apiKey}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${quarry.url}${urlPath}`, {
      method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), redirect: 'manual',
    });
    const text = await response.text();
    if (options.showsSecret !== true) responses.push(`${method} ${urlPath} ${String(response.status)}\n${JSON.stringify([...response.headers])}\n${text}`);
    return { status: response.status, headers: response.headers, text, json: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) as Record<string, unknown> : undefined };
  };

  beforeAll(async () => {
    api = await startFakeApi((app) => {
      app.get('/v1/items', (request, reply) => {
        if (bearerOf(request) !== SECRETS.envBearerToken) return reply.code(401).send({ message: 'bad token' });
        return { data: records(30, (n) => ({ id: n, name: `item ${String(n)}` })) };
      });
      app.get('/v1/people', (request, reply) => {
        const credentials = basicOf(request);
        if (credentials?.user !== 'ann' || credentials.password !== SECRETS.envBasicPassword) return reply.code(401).send({ message: 'who?' });
        return records(5, (n) => ({ id: n }));
      });
    });
    quarry = await startLoggedQuarry(api);
    // The OAuth tokens `quarry oauth setup google --for sources` would store.
    await quarry.ctx.sourceTokens.save('google', {
      accessToken: SECRETS.oauthAccessToken, refreshToken: SECRETS.oauthRefreshToken, expiresAt: Date.now() + 3_600_000,
      tokenUrl: `${api.url}/token`, clientId: 'client-id', clientSecretEnv: 'QUARRY_GOOGLE_SOURCES_CLIENT_SECRET',
    });

    const failed = await call('POST', '/api/auth/login', { body: { email: ADMIN, password: SECRETS.wrongPassword } });
    expect(failed.status).toBe(401);
    const login = await call('POST', '/api/auth/login', { body: { email: ADMIN, password: SECRETS.adminPassword } });
    expect(login.status).toBe(200);
    const cookie = (login.headers.getSetCookie().find((value) => value.startsWith('svc_session=')) ?? '').split(';')[0] ?? '';

    const user = await call('POST', '/api/users', { cookie, body: { email: 'user@security.test', name: 'User', role: 'editor', password: SECRETS.userPassword } });
    expect(user.status).toBe(201);
    const created = await call('POST', '/api/auth/api-keys', { cookie, body: { name: 'automation' }, showsSecret: true });
    expect(created.status).toBe(201);
    apiKeys.push(String(created.json?.key));
    const setup = await call('POST', '/api/auth/2fa/setup', { cookie, showsSecret: true });
    totpSecret = String(setup.json?.secret);
    const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(totpSecret) }).generate();
    expect((await call('POST', '/api/auth/2fa/enable', { cookie, body: { code } })).status).toBe(200);

    for (const source of ['shop', 'people']) {
      const ended = new Promise<string>((resolve) => {
        const unsubscribe = quarry.ctx.events.subscribe((event) => {
          if ((event.type === 'sync_completed' || event.type === 'sync_failed') && event.source === source) {
            unsubscribe();
            resolve(event.type);
          }
        });
      });
      await quarry.ctx.jobs.startSync(source, { fullRefresh: false, requestedBy: 'test' });
      expect(await ended).toBe('sync_completed');
      await quarry.ctx.jobs.idle();
    }
    // Every readable API operation, as the admin's key, with real path parameters.
    const document = await call('GET', '/api/openapi.json', { apiKey: apiKeys[0] });
    const fill: Record<string, string> = { source_name: 'shop', email: 'user@security.test', model_name: 'none', id: 'none' };
    for (const [template, methods] of Object.entries(document.json?.paths as Record<string, Record<string, unknown>>)) {
      if (!('get' in methods)) continue;
      const filled = template.replace(/\{([^}]+)\}/g, (_whole, name: string) => fill[name] ?? 'x');
      await call('GET', filled, { apiKey: apiKeys[0] });
      await call('GET', filled, { cookie });
    }
    for (const page of ['/', '/settings/account', '/admin/users']) await call('GET', page, { cookie });
    await call('GET', '/api/logs?limit=1000', { apiKey: apiKeys[0] });
    await call('GET', '/api/audit?limit=1000', { apiKey: apiKeys[0] });
  }, 120_000);

  afterAll(async () => {
    await quarry.close();
    await api.close();
  });

  const everySecret = (): [string, string][] => [...Object.entries(SECRETS), ['apiKey', apiKeys[0] ?? ''], ['totpSecret', totpSecret]];

  function expectNoSecretIn(where: string, text: string): void {
    const found = everySecret().filter(([, secret]) => text.includes(secret)).map(([name]) => name);
    expect({ where, found }).toEqual({ where, found: [] });
  }

  it('seeded every kind of secret and used each one', async () => {
    expect(apiKeys[0]).toMatch(/^svc_ak_/);
    expect(totpSecret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(api.requests.filter((request) => request.path === '/v1/items').length).toBeGreaterThan(0);
    expect(api.requests.filter((request) => request.path === '/v1/people').length).toBeGreaterThan(0);
    expect((await quarry.ctx.sourceTokens.find('google'))?.accessToken).toBe(SECRETS.oauthAccessToken);
    expect(readFileSync(quarry.ctx.paths.envFile, 'utf8')).toContain(SECRETS.envBearerToken); // where it belongs
  });

  it('keeps them out of the log lines in the platform DB and out of the process log', async () => {
    const stored = await quarry.ctx.store.logs.latest(100_000);
    expect(stored.length).toBeGreaterThan(0);
    expectNoSecretIn('platform logs', JSON.stringify(stored));
    const output = quarry.logOutput();
    expect(output).toContain('"module":"http"'); // the request log is really being captured
    expectNoSecretIn('pino output', output);
  });

  it('keeps them out of every API response and page after the one that shows a new key or TOTP secret', () => {
    expect(responses.length).toBeGreaterThan(20);
    for (const response of responses) expectNoSecretIn(response.split('\n')[0] ?? '', response);
  });

  it('keeps them out of sources.yml, project.yml and the platform DB files', () => {
    expectNoSecretIn('sources.yml', readFileSync(quarry.ctx.paths.sourcesFile, 'utf8'));
    for (const file of filesBelow(path.join(quarry.dir, '.quarry'))) {
      if (path.basename(file) === 'secret.key') continue;
      expectNoSecretIn(path.relative(quarry.dir, file), readFileSync(file).toString('latin1'));
    }
  });

  it('keeps them out of the warehouse (its catalog and data files)', async () => {
    const files = filesBelow(quarry.ctx.paths.warehouseDir);
    expect(files.some((file) => file.endsWith('.parquet'))).toBe(true);
    for (const file of files) expectNoSecretIn(path.relative(quarry.dir, file), readFileSync(file).toString('latin1'));
    // Parquet compresses strings on disk, so read every table too, as a dashboard would.
    const tables = await queryLake(quarry.dir, "SELECT format('{}.{}', table_schema, table_name) AS name FROM information_schema.tables WHERE table_catalog = 'warehouse'");
    expect(tables.length).toBeGreaterThanOrEqual(2);
    for (const { name } of tables) {
      const table = typeof name === 'string' ? name : '';
      expectNoSecretIn(`warehouse ${table}`, JSON.stringify(await queryLake(quarry.dir, `SELECT * FROM ${table}`)));
    }
  });
});
