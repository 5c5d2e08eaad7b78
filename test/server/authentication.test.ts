import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMAILS, PASSWORDS, sessionCookieOf, startQuarry, type TestQuarry } from '../support/quarry.ts';

describe('authentication', () => {
  let quarry: TestQuarry;
  beforeAll(async () => {
    quarry = await startQuarry();
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('refuses every API operation of the OpenAPI document without credentials', async () => {
    const document = (await quarry.request('GET', '/api/openapi.json', { as: 'admin' })).json;
    const operations: [string, string][] = [];
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(methods)) operations.push([method.toUpperCase(), path.replace(/\{[^}]+\}/g, 'x')]);
    }
    expect(operations.length).toBeGreaterThan(10);
    for (const [method, path] of operations) {
      if (path === '/api/auth/login') continue;
      const response = await quarry.request(method, path);
      expect({ method, path, status: response.status, body: response.json }).toEqual({
        method, path, status: 401, body: { detail: 'Authentication required', code: 'unauthenticated' },
      });
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  it('refuses unknown API paths, the docs and the OpenAPI document without credentials', async () => {
    for (const path of ['/api/no-such-thing', '/api/openapi.json', '/api/docs/', '/api/docs/static/index.html', '/api/redoc', '/api/redoc/redoc.standalone.js', '/ws']) {
      const response = await quarry.request('GET', path);
      expect({ path, status: response.status, code: response.json?.code }).toEqual({ path, status: 401, code: 'unauthenticated' });
    }
  });

  it('sends browsers without a session to the login page', async () => {
    for (const path of ['/', '/settings/account', '/dashboard/', '/transform-docs/index.html', '/anything?x=1']) {
      const response = await quarry.request('GET', path);
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
  });

  it('serves the login page and its assets anonymously', async () => {
    const page = await quarry.request('GET', '/login');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<form id="login-form" method="post" action="/api/auth/login">');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect((await quarry.request('GET', '/static/public/login.js')).status).toBe(200);
    expect((await quarry.request('GET', '/static/public/quarry.css')).status).toBe(200);
    expect((await quarry.request('GET', '/static/public/../../server/index.ts')).status).not.toBe(200);
  });

  it('logs in with a password, sets an HttpOnly SameSite=Lax session cookie and says who is signed in', async () => {
    const response = await quarry.request('POST', '/api/auth/login', { body: { email: EMAILS.editor, password: PASSWORDS.editor } });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ success: true, requires_2fa: false, redirect: '/' });
    const setCookie = response.headers.getSetCookie().find((cookie) => cookie.startsWith('svc_session='));
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).not.toMatch(/Secure/i);
    const cookie = sessionCookieOf(response.headers);
    const me = await quarry.request('GET', '/api/auth/me', { cookie });
    expect(me.json).toEqual({
      email: EMAILS.editor, name: 'Test editor', role: 'editor', two_factor_enabled: false, auth_method: 'session',
    });
    const home = await quarry.request('GET', '/', { cookie });
    expect(home.status).toBe(200);
    expect(home.text).toContain(`<strong id="whoami">${EMAILS.editor}</strong>`);
  });

  it('stores only a hash of the session token', async () => {
    const cookie = await quarry.login('viewer');
    const token = cookie.split('=')[1]!;
    const rows = (quarry.ctx.store as unknown as { sessions: { findByTokenHash(hash: string): Promise<unknown> } });
    expect(await rows.sessions.findByTokenHash(token)).toBeUndefined();
  });

  it('treats emails case-insensitively', async () => {
    const response = await quarry.request('POST', '/api/auth/login', { body: { email: '  Viewer@TEST.local ', password: PASSWORDS.viewer } });
    expect(response.status).toBe(200);
  });

  it('answers the same 401 for a wrong password, an unknown email and an inactive account', async () => {
    await quarry.ctx.auth.addUser({ email: 'gone@test.local', role: 'viewer', password: 'gone-password-1' });
    const admin = (await quarry.ctx.auth.actorFromSessionToken((await quarry.login('admin')).split('=')[1]!))!.actor;
    await quarry.ctx.auth.updateUser(admin, 'gone@test.local', { active: false });
    const attempts = [
      { email: EMAILS.viewer, password: 'wrong-password' },
      { email: 'nobody@test.local', password: 'whatever-password' },
      { email: 'gone@test.local', password: 'gone-password-1' },
    ];
    for (const body of attempts) {
      const response = await quarry.request('POST', '/api/auth/login', { body });
      expect(response.status).toBe(401);
      expect(response.json).toEqual({ detail: 'Invalid email or password', code: 'invalid_credentials' });
      expect(response.headers.getSetCookie()).toEqual([]);
    }
  });

  it('rejects a login request without email or password as invalid', async () => {
    const response = await quarry.request('POST', '/api/auth/login', { body: { email: EMAILS.viewer } });
    expect(response.status).toBe(400);
    expect(response.json.code).toBe('invalid_request');
    const broken = await quarry.request('POST', '/api/auth/login', { body: '{"email":', headers: { 'content-type': 'application/json' } });
    expect(broken.status).toBe(400);
    expect(broken.json.code).toBe('invalid_request');
  });

  it('logs in from the HTML form and redirects to a safe next path only', async () => {
    const form = (next: string, password = PASSWORDS.viewer) => new URLSearchParams({ email: EMAILS.viewer, password, next }).toString();
    const headers = { 'content-type': 'application/x-www-form-urlencoded', origin: quarry.url };
    const good = await quarry.request('POST', '/api/auth/login', { body: form('/settings/account'), headers });
    expect(good.status).toBe(303);
    expect(good.headers.get('location')).toBe('/settings/account');
    for (const hostile of ['//evil.example', 'https://evil.example/', '/\\evil.example', '/%2F%2Fevil.example']) {
      const response = await quarry.request('POST', '/api/auth/login', { body: form(hostile), headers });
      expect(response.headers.get('location')?.startsWith('/')).toBe(true);
      expect(response.headers.get('location')?.startsWith('//')).toBe(false);
    }
    const bad = await quarry.request('POST', '/api/auth/login', { body: form('/x', 'wrong-password'), headers });
    expect(bad.status).toBe(303);
    expect(bad.headers.get('location')).toBe('/login?error=invalid_credentials&next=%2Fx');
  });

  it('refuses a login form posted from another origin', async () => {
    const response = await quarry.request('POST', '/api/auth/login', {
      body: new URLSearchParams({ email: EMAILS.viewer, password: PASSWORDS.viewer }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
    });
    expect(response.status).toBe(403);
    expect(response.json).toEqual(expect.objectContaining({ code: 'csrf_failed' }));
  });

  it('logs out: the session ends and both cookies are cleared', async () => {
    const cookie = await quarry.login('viewer');
    const response = await quarry.request('POST', '/api/auth/logout', { cookie, headers: { 'x-requested-with': 'XMLHttpRequest' } });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ success: true });
    const cleared = response.headers.getSetCookie();
    expect(cleared.some((value) => value.startsWith('svc_session=;'))).toBe(true);
    expect(cleared.some((value) => value.startsWith('dashboard.SESSION=;'))).toBe(true);
    expect((await quarry.request('GET', '/api/auth/me', { cookie })).status).toBe(401);
  });

  it('requires the CSRF header or a same-origin Origin on cookie-authenticated state changes', async () => {
    const cookie = await quarry.login('viewer');
    const bare = await quarry.request('POST', '/api/auth/api-keys', { cookie, body: { name: 'k' } });
    expect(bare.status).toBe(403);
    expect(bare.json).toEqual({ detail: expect.stringContaining('Cross-site request refused'), code: 'csrf_failed' });
    const crossSite = await quarry.request('POST', '/api/auth/api-keys', { cookie, body: { name: 'k' }, headers: { origin: 'https://evil.example', 'x-requested-with': 'XMLHttpRequest' } });
    expect(crossSite.status).toBe(403);
    const sameOrigin = await quarry.request('POST', '/api/auth/api-keys', { cookie, body: { name: 'k' }, headers: { origin: quarry.url } });
    expect(sameOrigin.status).toBe(201);
    const header = await quarry.request('POST', '/api/auth/api-keys', { cookie, body: { name: 'k2' }, headers: { 'x-requested-with': 'XMLHttpRequest' } });
    expect(header.status).toBe(201);
    expect(await quarry.ctx.store.apiKeys.listActiveForUser((await quarry.ctx.store.users.findByEmail(EMAILS.viewer))!.id)).toHaveLength(2);
  });

  it('expires a session after the idle timeout and after the absolute lifetime', async () => {
    const idle = await quarry.login('viewer');
    quarry.clock.advance(1439 * 60_000);
    expect((await quarry.request('GET', '/api/auth/me', { cookie: idle })).status).toBe(200);
    quarry.clock.advance(1439 * 60_000);
    expect((await quarry.request('GET', '/api/auth/me', { cookie: idle })).status).toBe(200);
    quarry.clock.advance(1441 * 60_000);
    expect((await quarry.request('GET', '/api/auth/me', { cookie: idle })).status).toBe(401);

    const kept = await quarry.login('viewer');
    const hour = 3600_000;
    let elapsed = 0;
    while (elapsed + 23 * hour < 365 * 24 * hour) {
      quarry.clock.advance(23 * hour);
      elapsed += 23 * hour;
      expect((await quarry.request('GET', '/api/auth/me', { cookie: kept })).status).toBe(200);
    }
    quarry.clock.advance(365 * 24 * hour - elapsed + 1000);
    expect((await quarry.request('GET', '/api/auth/me', { cookie: kept })).status).toBe(401);
  });
});
