import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestFrom } from '../support/http-from.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { rawRequest } from '../support/raw-request.ts';

/**
 * The class: a request decision (rate limit, API or page, which limit, what reaches an upstream) must be
 * taken on the path the router matched, never on the raw URL, which a client can spell many ways.
 */

/** Every spelling below reaches the same route as the first. */
const LOGIN_SPELLINGS = [
  '/api/auth/login', '/%61pi/auth/login', '/api/auth/%6cogin', '/api/auth/%6Cogin', '/api/%61uth/login', '/%61%70%69/%61%75%74%68/%6c%6f%67%69%6e',
];
const STATUS_SPELLINGS = ['/api/status', '/%61pi/status', '/api/st%61tus', '/%61%70%69/%73%74%61%74%75%73'];
/** The other routes a secret is typed into share the login limit, however spelled. */
const SECRET_ROUTES = ['/api/auth/2fa/verify', '/api/auth/2f%61/verify', '/api/auth/password', '/%61pi/auth/password', '/api/auth/2fa/disable', '/api/auth/2fa/en%61ble'];

describe('path decoding in rate limits', () => {
  let quarry: TestQuarry;
  beforeAll(async () => {
    quarry = await startQuarry({ users: [], projectConfig: { limits: { login_requests_per_minute: 10, api_requests_per_minute: 12 } } });
  });
  afterAll(async () => {
    await quarry.close();
  });

  let attempt = 0;
  // A new email each time, so the per-(IP, email) lockout never answers before the rate limit does.
  const login = (from: string, path: string) =>
    requestFrom(from, `${quarry.url}${path}`, { method: 'POST', body: { email: `nobody${String(++attempt)}@test.local`, password: 'wrong-password' } });

  it.each(LOGIN_SPELLINGS.map((path, index) => [path, `127.0.1.${String(index + 1)}`]))(
    'counts POST %s against the login limit, shared with every other spelling of it', async (path, ip) => {
      const statuses: number[] = [];
      for (let index = 0; index < 10; index++) statuses.push((await login(ip, LOGIN_SPELLINGS[index % LOGIN_SPELLINGS.length] ?? path)).status);
      expect(statuses).toEqual(Array(10).fill(401));
      const limited = await login(ip, path);
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ detail: expect.stringContaining('at most 10 a minute'), code: 'rate_limited' });
      expect(limited.headers['ratelimit-limit']).toBe('10');
      // The login bucket is its own: the general /api one is untouched.
      expect((await requestFrom(ip, `${quarry.url}/api/status`)).headers['ratelimit-limit']).toBe('12');
    },
  );

  it.each(STATUS_SPELLINGS.map((path, index) => [path, `127.0.2.${String(index + 1)}`]))(
    'counts GET %s against the general /api limit and answers it as an API path', async (path, ip) => {
      const first = await requestFrom(ip, `${quarry.url}${path}`);
      expect(first.status).toBe(401);
      expect(first.body).toEqual({ detail: 'Authentication required', code: 'unauthenticated' });
      expect(first.headers['www-authenticate']).toBe('Bearer');
      expect(first.headers['ratelimit-limit']).toBe('12');
      for (let index = 1; index < 12; index++) await requestFrom(ip, `${quarry.url}${STATUS_SPELLINGS[index % STATUS_SPELLINGS.length] ?? path}`);
      const limited = await requestFrom(ip, `${quarry.url}${path}`);
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ detail: expect.stringContaining('at most 12 a minute'), code: 'rate_limited' });
    },
  );

  it('counts a guessed two-factor code, password or 2FA code against the login limit whatever the spelling', async () => {
    const ip = '127.0.3.1';
    for (const path of SECRET_ROUTES) {
      const response = await requestFrom(ip, `${quarry.url}${path}`, { method: 'POST', body: { code: '000000' } });
      expect({ path, limit: response.headers['ratelimit-limit'] }).toEqual({ path, limit: '10' });
    }
  });

  it('limits an unknown /api path however it is spelled, and answers it in JSON', async () => {
    const response = await requestFrom('127.0.4.1', `${quarry.url}/%61pi/no-such-endpoint`);
    expect(response.status).toBe(401);
    expect(response.headers['ratelimit-limit']).toBe('12');
  });
});

describe('path decoding at the proxies and in the error format', () => {
  let quarry: TestQuarry;
  let cookie: string;
  beforeAll(async () => {
    quarry = await startQuarry({ docsServer: true });
    cookie = await quarry.login('viewer');
  });
  afterAll(async () => {
    await quarry.close();
  });

  it.each([
    '/transform-docs/../x', '/transform-docs/%2e%2e/manifest.json', '/transform-docs/.%2E/x', '/transform-docs/./index.html', '/transform-docs/a/%2e%2e%2f%2e%2e%2fx',
    '/dashboard/%2e%2e/api/v1/chart/', '/dashboard/%2E%2E%2Fapi/v1/chart/', '/dashboard/..%5capi', '/api/../api/status', '/%61pi/%2e%2e/api/status', '/manifest.json/..',
  ])('refuses GET %s with 400 invalid_request in the contract format', async (path) => {
    const variants: Record<string, string>[] = [{ cookie }, { cookie, accept: 'text/html' }, {}];
    for (const headers of variants) {
      const response = await rawRequest(quarry.url, `GET ${path} HTTP/1.1`, headers);
      expect({ path, status: response.status, body: JSON.parse(response.body) as unknown }).toEqual({
        path, status: 400, body: { detail: 'The path has "." or ".." segments; send it as resolved', code: 'invalid_request' },
      });
    }
  });

  it('still serves the docs site through the proxy', async () => {
    const response = await rawRequest(quarry.url, 'GET /transform-docs/ HTTP/1.1', { cookie });
    expect(response.status).toBe(200);
  });

  it('answers a page path spelled with escapes as a page, and an API path so spelled as the API', async () => {
    expect((await rawRequest(quarry.url, 'GET /%6cogin HTTP/1.1', {})).status).toBe(200);
    const api = await rawRequest(quarry.url, 'GET /%61pi/auth/me HTTP/1.1', {});
    expect(api.status).toBe(401);
    expect(JSON.parse(api.body)).toEqual({ detail: 'Authentication required', code: 'unauthenticated' });
    const page = await rawRequest(quarry.url, 'GET /%6dodels HTTP/1.1', {});
    expect(page.status).toBe(303);
  });
});
