import { DatabaseSync } from 'node:sqlite';
import * as OTPAuth from 'otpauth';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionCookieOf, startQuarry, type TestQuarry } from '../support/quarry.ts';

/**
 * Every operation the OpenAPI document lists, walked with what an attacker or a careless client sends: no
 * credentials, a session whose two-factor step is pending, and a form post (the one body a hostile page can
 * send cross-site without a preflight). An endpoint added later is walked too, so it cannot drift.
 */

const XHR = { 'x-requested-with': 'XMLHttpRequest' };
const FORM = 'application/x-www-form-urlencoded';
/** What a partial session may still do: finish the login or give it up. */
const PARTIAL_ALLOWED = new Set(['POST /api/auth/2fa/verify', 'POST /api/auth/logout']);

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly isPublic: boolean;
  readonly mediaTypes: readonly string[];
}

interface OpenApiOperation {
  security?: unknown[];
  requestBody?: { content: Record<string, unknown> };
}

describe('every operation of /api/openapi.json keeps the contract', () => {
  let quarry: TestQuarry;
  let operations: Operation[];
  let partialCookie: string;
  let adminCookie: string;

  beforeAll(async () => {
    quarry = await startQuarry();
    adminCookie = await quarry.login('admin');
    const document = (await quarry.request('GET', '/api/openapi.json', { cookie: adminCookie })).json as { paths: Record<string, Record<string, OpenApiOperation>> };
    operations = Object.entries(document.paths).flatMap(([path, byMethod]) => Object.entries(byMethod).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path: path.replace(/\{[^}]+\}/g, 'walked'),
      isPublic: Array.isArray(operation.security) && operation.security.length === 0,
      mediaTypes: Object.keys(operation.requestBody?.content ?? {}),
    })));
    partialCookie = await partialSession(quarry);
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('lists the operations it walks', () => {
    expect(operations.length).toBeGreaterThan(30);
    expect(operations.filter((operation) => operation.isPublic).map((operation) => `${operation.method} ${operation.path}`)).toEqual(['POST /api/auth/login']);
  });

  it('answers every non-public operation without credentials 401 unauthenticated with WWW-Authenticate: Bearer', async () => {
    for (const { method, path } of operations.filter((operation) => !operation.isPublic)) {
      const response = await quarry.request(method, path, { headers: XHR });
      expect({ method, path, status: response.status, body: response.json, scheme: response.headers.get('www-authenticate') }).toEqual({
        method, path, status: 401, body: { detail: 'Authentication required', code: 'unauthenticated' }, scheme: 'Bearer',
      });
    }
  });

  it('answers a two-factor-pending session 401 on every operation but finishing or ending the login', async () => {
    for (const { method, path } of operations.filter((operation) => !operation.isPublic && !PARTIAL_ALLOWED.has(`${operation.method} ${operation.path}`))) {
      const response = await quarry.request(method, path, { cookie: partialCookie, headers: XHR });
      expect({ method, path, status: response.status, body: response.json, scheme: response.headers.get('www-authenticate') }).toEqual({
        method, path, status: 401, body: { detail: 'Finish logging in with your two-factor code first', code: 'unauthenticated' }, scheme: 'Bearer',
      });
    }
    // The pending login still works.
    expect((await quarry.request('GET', '/api/auth/me', { cookie: partialCookie })).status).toBe(401);
    expect((await quarry.request('POST', '/api/auth/2fa/verify', { cookie: partialCookie, headers: XHR, body: { code: 'abc' } })).json.code).toBe('invalid_totp_code');
  });

  it('refuses the WebSocket upgrade without credentials and for a two-factor-pending session, with 401', async () => {
    for (const headers of [{}, { cookie: partialCookie }]) {
      const status = await new Promise<number>((resolve, reject) => {
        const socket = new WebSocket(`${quarry.url.replace('http', 'ws')}/ws`, { headers });
        socket.on('unexpected-response', (_request, response) => { resolve(response.statusCode ?? 0); });
        socket.on('open', () => { socket.close(); reject(new Error('the upgrade was accepted')); });
        socket.on('error', reject);
      });
      expect(status).toBe(401);
    }
  });

  it('refuses a form post to every operation that does not document one, with 415, and changes nothing', async () => {
    const before = platformSnapshot(quarry);
    const withBodies = operations.filter((operation) => operation.method !== 'GET');
    for (const { method, path, mediaTypes } of withBodies.filter((operation) => !operation.mediaTypes.includes(FORM))) {
      const response = await quarry.request(method, path, {
        cookie: adminCookie, headers: { ...XHR, 'content-type': FORM }, body: 'name=form-made&email=form-made%40test.local&role=admin&password=form-made-password',
      });
      const accepted = ['application/json', ...mediaTypes.filter((type) => type !== 'application/json')].join(' or ');
      expect({ method, path, status: response.status, body: response.json }).toEqual({
        method, path, status: 415, body: { detail: `This endpoint takes a body of type ${accepted}`, code: 'unsupported_media_type' },
      });
    }
    expect(platformSnapshot(quarry)).toEqual(before);
    expect((await quarry.request('GET', '/api/auth/me', { cookie: adminCookie })).status).toBe(200);
  });

  it('documents the login as the one operation that takes a form post, and takes it', async () => {
    expect(operations.filter((operation) => operation.mediaTypes.includes(FORM)).map((operation) => `${operation.method} ${operation.path}`))
      .toEqual(['POST /api/auth/login']);
    const response = await quarry.request('POST', '/api/auth/login', {
      headers: { 'content-type': FORM, origin: quarry.url }, body: 'email=admin%40test.local&password=wrong-password',
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toMatch(/^\/login\?error=invalid_credentials/);
  });

  it('refuses text/plain and multipart bodies to a JSON operation too (the other two cross-site form encodings)', async () => {
    const before = platformSnapshot(quarry);
    const form = new FormData();
    form.append('name', 'multipart-made');
    for (const body of [form, '{"name":"plain-made"}']) {
      const headers = typeof body === 'string' ? { ...XHR, 'content-type': 'text/plain' } : XHR;
      const response = await quarry.request('POST', '/api/auth/api-keys', { cookie: adminCookie, headers, body });
      expect({ status: response.status, code: response.json.code as unknown }).toEqual({ status: 415, code: 'unsupported_media_type' });
    }
    expect(platformSnapshot(quarry)).toEqual(before);
  });
});

/** A user with two-factor on, logged in with the password only. */
async function partialSession(quarry: TestQuarry): Promise<string> {
  await quarry.ctx.auth.addUser({ email: 'pending@test.local', role: 'admin', password: 'pending-password-1' });
  const login = () => quarry.request('POST', '/api/auth/login', { body: { email: 'pending@test.local', password: 'pending-password-1' } });
  const cookie = sessionCookieOf((await login()).headers);
  const { json } = await quarry.request('POST', '/api/auth/2fa/setup', { cookie, headers: XHR });
  const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(json.secret as string) }).generate({ timestamp: quarry.clock.now().getTime() });
  expect((await quarry.request('POST', '/api/auth/2fa/enable', { cookie, headers: XHR, body: { code } })).status).toBe(200);
  const partial = await login();
  expect(partial.json).toEqual({ success: true, requires_2fa: true });
  return sessionCookieOf(partial.headers);
}

/** What a request could have changed in the platform database. */
function platformSnapshot(quarry: TestQuarry): Record<string, unknown> {
  const database = new DatabaseSync(quarry.ctx.paths.platformDb, { readOnly: true });
  try {
    const all = (sql: string) => database.prepare(sql).all();
    return {
      users: all('SELECT email, role, active, name, password_hash FROM users ORDER BY id'),
      sessions: all('SELECT id, stage FROM sessions ORDER BY id'),
      apiKeys: all('SELECT id, revoked_at FROM api_keys ORDER BY id'),
      jobs: all('SELECT id FROM jobs'),
      audit: all("SELECT event FROM audit_events WHERE event NOT LIKE 'login%' ORDER BY id"),
    };
  } finally {
    database.close();
  }
}
