import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPlatformStore } from '../support/platform-sql.ts';
import { EMAILS, sessionCookieOf, startQuarry, type TestQuarry } from '../support/quarry.ts';

describe('API keys', () => {
  let quarry: TestQuarry;
  beforeAll(async () => {
    quarry = await startQuarry();
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('creates a key shown once, stores only its SHA-256 and lists it without the key', async () => {
    const created = await quarry.request('POST', '/api/auth/api-keys', { as: 'editor', body: { name: 'ci pipeline' } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.json).sort()).toEqual(['created_at', 'expires_at', 'id', 'key', 'name', 'prefix']);
    expect(created.json.key).toMatch(/^svc_ak_[A-Za-z0-9_-]{43}$/);
    expect(created.json.key.startsWith(created.json.prefix)).toBe(true);
    expect(created.json.expires_at).toBeNull();

    const [row] = await onPlatformStore(quarry.ctx, 'SELECT key_hash FROM api_keys WHERE id = ?', created.json.id);
    const dump = JSON.stringify(await onPlatformStore(quarry.ctx, 'SELECT * FROM api_keys'));
    expect(row!.key_hash).toBe(createHash('sha256').update(created.json.key).digest('hex'));
    expect(dump).not.toContain(created.json.key);

    const listed = await quarry.request('GET', '/api/auth/api-keys', { as: 'editor' });
    expect(listed.json).toEqual([expect.objectContaining({ id: created.json.id, name: 'ci pipeline', prefix: created.json.prefix })]);
    expect(listed.text).not.toContain(created.json.key);
    expect(Object.keys(listed.json[0]).sort()).toEqual(['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'prefix']);
  });

  it('authenticates with the Bearer header, with the creator\'s role, and needs no CSRF header, but mints no keys', async () => {
    const { json } = await quarry.request('POST', '/api/auth/api-keys', { as: 'viewer', body: { name: 'reader' } });
    const me = await quarry.request('GET', '/api/auth/me', { apiKey: json.key });
    expect(me.json).toEqual(expect.objectContaining({ email: EMAILS.viewer, role: 'viewer', auth_method: 'api_key' }));
    const another = await quarry.request('POST', '/api/auth/api-keys', { apiKey: json.key, body: { name: 'made by key' } });
    expect({ status: another.status, body: another.json }).toEqual({
      status: 400, body: { detail: 'This needs a signed-in browser session, not an API key', code: 'invalid_request' },
    });
    const forbidden = await quarry.request('GET', '/api/users', { apiKey: json.key });
    expect(forbidden.status).toBe(403);
    expect(forbidden.json).toEqual({ detail: 'Your role (viewer) does not allow this', code: 'forbidden' });
  });

  it('follows the creator\'s current role', async () => {
    await quarry.ctx.auth.addUser({ email: 'promoted@test.local', role: 'viewer', password: 'promoted-password' });
    const login = await quarry.request('POST', '/api/auth/login', { body: { email: 'promoted@test.local', password: 'promoted-password' } });
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    const { json } = await quarry.request('POST', '/api/auth/api-keys', { cookie, body: { name: 'k' }, headers: { 'x-requested-with': 'XMLHttpRequest' } });
    expect((await quarry.request('GET', '/api/users', { apiKey: json.key })).status).toBe(403);
    await quarry.request('PATCH', '/api/users/promoted@test.local', { as: 'admin', body: { role: 'admin' } });
    expect((await quarry.request('GET', '/api/users', { apiKey: json.key })).status).toBe(200);
  });

  it('refuses a revoked key and a revoked key cannot be revoked twice', async () => {
    const { json } = await quarry.request('POST', '/api/auth/api-keys', { as: 'editor', body: { name: 'short lived' } });
    expect((await quarry.request('GET', '/api/status', { apiKey: json.key })).status).toBe(200);
    const revoked = await quarry.request('DELETE', `/api/auth/api-keys/${json.id}`, { as: 'editor' });
    expect(revoked.json).toEqual({ success: true, id: json.id });
    const after = await quarry.request('GET', '/api/status', { apiKey: json.key });
    expect(after.status).toBe(401);
    expect(after.json).toEqual({ detail: 'Invalid, expired or revoked API key', code: 'unauthenticated' });
    const again = await quarry.request('DELETE', `/api/auth/api-keys/${json.id}`, { as: 'editor' });
    expect(again.status).toBe(404);
    expect(again.json.code).toBe('not_found');
  });

  it('does not let one user revoke another user\'s key', async () => {
    const { json } = await quarry.request('POST', '/api/auth/api-keys', { as: 'editor', body: { name: 'mine' } });
    const attempt = await quarry.request('DELETE', `/api/auth/api-keys/${json.id}`, { as: 'viewer' });
    expect(attempt.status).toBe(404);
    expect((await quarry.request('GET', '/api/status', { apiKey: json.key })).status).toBe(200);
  });

  it('refuses a key past its expiry (a datetime without zone, read as UTC)', async () => {
    const expiry = new Date(quarry.clock.now().getTime() + 2 * 3600_000).toISOString().slice(0, 19);
    const { json, status } = await quarry.request('POST', '/api/auth/api-keys', { as: 'editor', body: { name: 'expiring', expires_at: expiry } });
    expect(status).toBe(201);
    expect(json.expires_at).toBe(`${expiry}.000Z`);
    expect((await quarry.request('GET', '/api/status', { apiKey: json.key })).status).toBe(200);
    quarry.clock.advance(2 * 3600_000 + 1000);
    expect((await quarry.request('GET', '/api/status', { apiKey: json.key })).status).toBe(401);
  });

  it('refuses a key whose user was deactivated', async () => {
    await quarry.ctx.auth.addUser({ email: 'leaver@test.local', role: 'editor', password: 'leaver-password' });
    const login = await quarry.request('POST', '/api/auth/login', { body: { email: 'leaver@test.local', password: 'leaver-password' } });
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    const { json } = await quarry.request('POST', '/api/auth/api-keys', { cookie, body: { name: 'k' }, headers: { 'x-requested-with': 'XMLHttpRequest' } });
    await quarry.request('PATCH', '/api/users/leaver@test.local', { as: 'admin', body: { active: false } });
    expect((await quarry.request('GET', '/api/status', { apiKey: json.key })).status).toBe(401);
    expect((await quarry.request('GET', '/api/status', { cookie })).status).toBe(401);
  });

  it.each([
    [{ name: '' }, 'invalid_request'],
    [{}, 'invalid_request'],
    [{ name: 'x'.repeat(101) }, 'invalid_request'],
    [{ name: 'k', expires_at: '2020-01-01T00:00:00' }, 'invalid_request'],
    [{ name: 'k', expires_at: '2099-02-30T00:00:00' }, 'invalid_request'],
    [{ name: 'k', expires_at: '2099-01-01T00:00:00Z' }, 'invalid_request'],
    [{ name: 'k', expires_at: 'tomorrow' }, 'invalid_request'],
    [{ name: 42 }, 'invalid_request'],
  ])('refuses a bad creation request %j and creates nothing', async (body, code) => {
    const before = (await quarry.request('GET', '/api/auth/api-keys', { as: 'viewer' })).json.length;
    const response = await quarry.request('POST', '/api/auth/api-keys', { as: 'viewer', body });
    expect(response.status).toBe(400);
    expect(response.json.code).toBe(code);
    expect(typeof response.json.detail).toBe('string');
    expect((await quarry.request('GET', '/api/auth/api-keys', { as: 'viewer' })).json.length).toBe(before);
  });

  it('refuses malformed Authorization headers and keys without the prefix', async () => {
    for (const authorization of ['Bearer', 'Basic dXNlcjpwYXNz', 'Bearer not-a-key', 'Bearer svc_ak_forged', 'Token svc_ak_x']) {
      const response = await quarry.request('GET', '/api/status', { headers: { authorization } });
      expect(response.status).toBe(401);
      expect(response.json.code).toBe('unauthenticated');
    }
  });

  it('cannot sign out sessions or change the password, which would sign them all out', async () => {
    await quarry.ctx.auth.addUser({ email: 'keyholder@test.local', role: 'editor', password: 'keyholder-password-1' });
    const browser = sessionCookieOf((await quarry.request('POST', '/api/auth/login', { body: { email: 'keyholder@test.local', password: 'keyholder-password-1' } })).headers);
    const xhr = { 'x-requested-with': 'XMLHttpRequest' };
    const { json: key } = await quarry.request('POST', '/api/auth/api-keys', { cookie: browser, headers: xhr, body: { name: 'leaked' } });
    const sessionId = ((await quarry.request('GET', '/api/auth/sessions', { cookie: browser })).json as { id: string }[])[0]?.id ?? '';
    const sessionOnly = { detail: 'This needs a signed-in browser session, not an API key', code: 'invalid_request' };
    for (const [method, path, body] of [
      ['DELETE', '/api/auth/sessions', undefined], ['DELETE', `/api/auth/sessions/${sessionId}`, undefined],
      ['POST', '/api/auth/password', { current_password: 'keyholder-password-1', new_password: 'taken-over-password' }],
    ] as const) {
      const response = await quarry.request(method, path, { apiKey: key.key as string, body });
      expect({ method, path, status: response.status, body: response.json }).toEqual({ method, path, status: 400, body: sessionOnly });
    }
    expect((await quarry.request('GET', '/api/auth/me', { cookie: browser })).status).toBe(200);
    expect((await quarry.request('POST', '/api/auth/login', { body: { email: 'keyholder@test.local', password: 'keyholder-password-1' } })).status).toBe(200);
  });

  it('stops working when a password change asks for it (revoke_api_keys), and keeps working otherwise', async () => {
    await quarry.ctx.auth.addUser({ email: 'rotator@test.local', role: 'viewer', password: 'rotator-password-1' });
    const xhr = { 'x-requested-with': 'XMLHttpRequest' };
    let cookie = sessionCookieOf((await quarry.request('POST', '/api/auth/login', { body: { email: 'rotator@test.local', password: 'rotator-password-1' } })).headers);
    const { json: kept } = await quarry.request('POST', '/api/auth/api-keys', { cookie, headers: xhr, body: { name: 'kept' } });
    const keep = await quarry.request('POST', '/api/auth/password', { cookie, headers: xhr, body: { current_password: 'rotator-password-1', new_password: 'rotator-password-2' } });
    expect(keep.status).toBe(200);
    expect((await quarry.request('GET', '/api/status', { apiKey: kept.key as string })).status).toBe(200);

    cookie = sessionCookieOf(keep.headers);
    const { json: other } = await quarry.request('POST', '/api/auth/api-keys', { cookie, headers: xhr, body: { name: 'other' } });
    const revoke = await quarry.request('POST', '/api/auth/password', {
      cookie, headers: xhr, body: { current_password: 'rotator-password-2', new_password: 'rotator-password-3', revoke_api_keys: true },
    });
    expect(revoke.json).toEqual({ success: true });
    for (const key of [kept.key as string, other.key as string]) {
      expect((await quarry.request('GET', '/api/status', { apiKey: key })).json).toEqual({ detail: 'Invalid, expired or revoked API key', code: 'unauthenticated' });
    }
    expect((await quarry.request('GET', '/api/auth/api-keys', { cookie: sessionCookieOf(revoke.headers) })).json).toEqual([]);
    const audit = (await quarry.ctx.auth.auditLog(50)).find((entry) => entry.event === 'password_changed' && entry.actorEmail === 'rotator@test.local');
    expect(audit?.detail).toBe('2 API keys revoked');
  });
});
