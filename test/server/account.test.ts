import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPlatformStore } from '../support/platform-sql.ts';
import { EMAILS, PASSWORDS, sessionCookieOf, startQuarry, type TestQuarry } from '../support/quarry.ts';

const XHR = { 'x-requested-with': 'XMLHttpRequest' };

describe('account: sessions, password, two-factor, audit', () => {
  let quarry: TestQuarry;
  beforeAll(async () => {
    quarry = await startQuarry();
  });
  afterAll(async () => {
    await quarry.close();
  });

  async function newUser(email: string, password: string, role: 'viewer' | 'editor' = 'viewer'): Promise<string> {
    await quarry.ctx.auth.addUser({ email, role, password });
    const response = await quarry.request('POST', '/api/auth/login', { body: { email, password } });
    expect(response.status).toBe(200);
    return sessionCookieOf(response.headers);
  }

  const codeAt = (secret: string, offsetSteps = 0): string => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) })
    .generate({ timestamp: quarry.clock.now().getTime() + offsetSteps * 30_000 });

  it('lists the caller\'s sessions, marks the current one, and signs out one or all others', async () => {
    const first = await newUser('many@test.local', 'many-sessions-pw');
    const second = sessionCookieOf((await quarry.request('POST', '/api/auth/login', { body: { email: 'many@test.local', password: 'many-sessions-pw' }, headers: { 'user-agent': 'phone' } })).headers);
    const third = sessionCookieOf((await quarry.request('POST', '/api/auth/login', { body: { email: 'many@test.local', password: 'many-sessions-pw' } })).headers);
    const listed = await quarry.request('GET', '/api/auth/sessions', { cookie: first });
    expect(listed.json).toHaveLength(3);
    expect(Object.keys(listed.json[0]).sort()).toEqual(['created_at', 'current', 'id', 'ip', 'last_seen_at', 'user_agent']);
    expect(listed.json.filter((entry: { current: boolean }) => entry.current)).toHaveLength(1);
    const phone = listed.json.find((entry: { user_agent: string }) => entry.user_agent === 'phone');
    expect((await quarry.request('DELETE', `/api/auth/sessions/${phone.id}`, { cookie: first, headers: XHR })).status).toBe(200);
    expect((await quarry.request('GET', '/api/auth/me', { cookie: second })).status).toBe(401);
    const others = await quarry.request('DELETE', '/api/auth/sessions', { cookie: first, headers: XHR });
    expect(others.json).toEqual({ success: true, ended: 1 });
    expect((await quarry.request('GET', '/api/auth/me', { cookie: third })).status).toBe(401);
    expect((await quarry.request('GET', '/api/auth/me', { cookie: first })).status).toBe(200);
    const foreign = await quarry.request('GET', '/api/auth/sessions', { as: 'viewer' });
    expect((await quarry.request('DELETE', `/api/auth/sessions/${foreign.json[0].id}`, { cookie: first, headers: XHR })).status).toBe(404);
  });

  it('changes the password: checks the current one and the policy, signs out other sessions, keeps this one', async () => {
    const cookie = await newUser('changer@test.local', 'changer-password-1');
    const other = sessionCookieOf((await quarry.request('POST', '/api/auth/login', { body: { email: 'changer@test.local', password: 'changer-password-1' } })).headers);
    const wrong = await quarry.request('POST', '/api/auth/password', { cookie, headers: XHR, body: { current_password: 'nope-nope-nope', new_password: 'brand-new-password' } });
    expect(wrong.status).toBe(401);
    expect(wrong.json.code).toBe('invalid_credentials');
    const common = await quarry.request('POST', '/api/auth/password', { cookie, headers: XHR, body: { current_password: 'changer-password-1', new_password: 'baseball' } });
    expect(common.json).toEqual({ detail: 'The password is one of the most commonly used passwords: choose another', code: 'weak_password' });
    const short = await quarry.request('POST', '/api/auth/password', { cookie, headers: XHR, body: { current_password: 'changer-password-1', new_password: 'short' } });
    expect(short.json).toEqual({ detail: 'The password is too short: use at least 8 characters', code: 'weak_password' });
    const changed = await quarry.request('POST', '/api/auth/password', { cookie, headers: XHR, body: { current_password: 'changer-password-1', new_password: 'brand-new-password' } });
    expect(changed.status).toBe(200);
    const renewed = sessionCookieOf(changed.headers);
    expect(renewed).not.toBe(cookie);
    expect((await quarry.request('GET', '/api/auth/me', { cookie: renewed })).status).toBe(200);
    expect((await quarry.request('GET', '/api/auth/me', { cookie: other })).status).toBe(401);
    expect((await quarry.request('POST', '/api/auth/login', { body: { email: 'changer@test.local', password: 'changer-password-1' } })).status).toBe(401);
    expect((await quarry.request('POST', '/api/auth/login', { body: { email: 'changer@test.local', password: 'brand-new-password' } })).status).toBe(200);
  });

  it('accepts long passwords whole: a different tail past 72 bytes does not match', async () => {
    const long = `${'a-very-long-passphrase-'.repeat(5)}ending-one`;
    await quarry.ctx.auth.addUser({ email: 'long@test.local', role: 'viewer', password: long });
    expect((await quarry.request('POST', '/api/auth/login', { body: { email: 'long@test.local', password: long } })).status).toBe(200);
    const sameStart = `${'a-very-long-passphrase-'.repeat(5)}ending-two`;
    expect((await quarry.request('POST', '/api/auth/login', { body: { email: 'long@test.local', password: sameStart } })).status).toBe(401);
  });

  it('enrolls two-factor with a QR code, then a login needs the code, which works once', async () => {
    const cookie = await newUser('totp@test.local', 'totp-user-password');
    const setup = await quarry.request('POST', '/api/auth/2fa/setup', { cookie, headers: XHR });
    expect(setup.status).toBe(200);
    expect(setup.json.otpauth_uri).toMatch(/^otpauth:\/\/totp\/.*secret=/);
    expect(setup.json.qr_svg).toMatch(/^<svg/);
    const secret: string = setup.json.secret;
    expect((await quarry.request('POST', '/api/auth/2fa/enable', { cookie, headers: XHR, body: { code: '000000' } })).json.code).toBe('invalid_totp_code');
    expect((await quarry.request('POST', '/api/auth/2fa/enable', { cookie, headers: XHR, body: { code: codeAt(secret) } })).status).toBe(200);
    expect((await quarry.request('GET', '/api/auth/me', { cookie })).json.two_factor_enabled).toBe(true);

    const stored = JSON.stringify(await onPlatformStore(quarry.ctx, "SELECT * FROM users WHERE email = 'totp@test.local'"));
    expect(stored).toContain('totp@test.local');
    expect(stored).not.toContain(secret);

    quarry.clock.advance(30_000);
    const login = await quarry.request('POST', '/api/auth/login', { body: { email: 'totp@test.local', password: 'totp-user-password' } });
    expect(login.json).toEqual({ success: true, requires_2fa: true });
    const partial = sessionCookieOf(login.headers);
    const pending = { detail: 'Finish logging in with your two-factor code first', code: 'unauthenticated' };
    for (const path of ['/api/auth/me', '/api/status', '/api/auth/sessions']) {
      const response = await quarry.request('GET', path, { cookie: partial });
      expect({ path, status: response.status, body: response.json, scheme: response.headers.get('www-authenticate') })
        .toEqual({ path, status: 401, body: pending, scheme: 'Bearer' });
    }
    expect((await quarry.request('POST', '/api/auth/api-keys', { cookie: partial, headers: XHR, body: { name: 'x' } })).status).toBe(401);
    const code = codeAt(secret);
    const verified = await quarry.request('POST', '/api/auth/2fa/verify', { cookie: partial, headers: XHR, body: { code } });
    expect(verified.json).toEqual({ success: true, requires_2fa: false, redirect: '/' });
    const full = sessionCookieOf(verified.headers);
    expect(full).not.toBe(partial);
    expect((await quarry.request('GET', '/api/auth/me', { cookie: full })).status).toBe(200);
    expect((await quarry.request('GET', '/api/auth/me', { cookie: partial })).status).toBe(401);

    const again = await quarry.request('POST', '/api/auth/login', { body: { email: 'totp@test.local', password: 'totp-user-password' } });
    const replay = await quarry.request('POST', '/api/auth/2fa/verify', { cookie: sessionCookieOf(again.headers), headers: XHR, body: { code } });
    expect(replay.status).toBe(400);
    expect(replay.json).toEqual({ detail: 'The two-factor code is wrong, expired or already used', code: 'invalid_totp_code' });
  });

  it('lets a partial session lapse after 5 minutes', async () => {
    const cookie = await newUser('slow@test.local', 'slow-user-password');
    const { json } = await quarry.request('POST', '/api/auth/2fa/setup', { cookie, headers: XHR });
    await quarry.request('POST', '/api/auth/2fa/enable', { cookie, headers: XHR, body: { code: codeAt(json.secret) } });
    quarry.clock.advance(30_000);
    const login = await quarry.request('POST', '/api/auth/login', { body: { email: 'slow@test.local', password: 'slow-user-password' } });
    quarry.clock.advance(5 * 60_000 + 1000);
    const late = await quarry.request('POST', '/api/auth/2fa/verify', { cookie: sessionCookieOf(login.headers), headers: XHR, body: { code: codeAt(json.secret) } });
    expect(late.status).toBe(401);
  });

  it('turns two-factor off only with a valid code', async () => {
    const cookie = await newUser('off@test.local', 'off-user-password');
    const { json } = await quarry.request('POST', '/api/auth/2fa/setup', { cookie, headers: XHR });
    await quarry.request('POST', '/api/auth/2fa/enable', { cookie, headers: XHR, body: { code: codeAt(json.secret) } });
    expect((await quarry.request('POST', '/api/auth/2fa/disable', { cookie, headers: XHR, body: { code: '123456' } })).status).toBe(400);
    quarry.clock.advance(30_000);
    expect((await quarry.request('POST', '/api/auth/2fa/disable', { cookie, headers: XHR, body: { code: codeAt(json.secret) } })).status).toBe(200);
    expect((await quarry.request('GET', '/api/auth/me', { cookie })).json.two_factor_enabled).toBe(false);
  });

  it('changes two-factor settings only from a browser session: an API key of the same user cannot, even with a right code', async () => {
    const cookie = await newUser('keyed@test.local', 'keyed-user-password');
    const { json: key } = await quarry.request('POST', '/api/auth/api-keys', { cookie, headers: XHR, body: { name: 'scripts' } });
    const sessionOnly = { detail: 'This needs a signed-in browser session, not an API key', code: 'invalid_request' };
    expect((await quarry.request('POST', '/api/auth/2fa/setup', { apiKey: key.key })).json).toEqual(sessionOnly);
    const { json: enrollment } = await quarry.request('POST', '/api/auth/2fa/setup', { cookie, headers: XHR });
    const byKey = await quarry.request('POST', '/api/auth/2fa/enable', { apiKey: key.key, body: { code: codeAt(enrollment.secret) } });
    expect({ status: byKey.status, body: byKey.json }).toEqual({ status: 400, body: sessionOnly });
    expect((await quarry.request('POST', '/api/auth/2fa/enable', { cookie, headers: XHR, body: { code: codeAt(enrollment.secret) } })).status).toBe(200);
    quarry.clock.advance(30_000);
    expect((await quarry.request('POST', '/api/auth/2fa/disable', { apiKey: key.key, body: { code: codeAt(enrollment.secret) } })).json).toEqual(sessionOnly);
    expect((await quarry.request('GET', '/api/auth/me', { cookie })).json.two_factor_enabled).toBe(true);
  });

  it('sends a user whose password is older than password_max_age_days to change it', async () => {
    const rotating = await startQuarry({ projectConfig: { auth: { password_max_age_days: 30 } }, users: [] });
    try {
      await rotating.ctx.auth.addUser({ email: 'old@test.local', role: 'editor', password: 'old-user-password' });
      const fresh = await rotating.request('POST', '/api/auth/login', { body: { email: 'old@test.local', password: 'old-user-password' } });
      expect(fresh.json).toEqual({ success: true, requires_2fa: false, redirect: '/' });
      rotating.clock.advance(31 * 86_400_000);
      const expired = await rotating.request('POST', '/api/auth/login', { body: { email: 'old@test.local', password: 'old-user-password' } });
      expect(expired.json).toEqual({ success: true, requires_2fa: false, password_change_required: true, redirect: '/settings/change-password' });
      const cookie = sessionCookieOf(expired.headers);
      expect((await rotating.request('GET', '/api/status', { cookie })).status).toBe(403);
      expect((await rotating.request('GET', '/', { cookie })).headers.get('location')).toBe('/settings/change-password');
      const changed = await rotating.request('POST', '/api/auth/password', { cookie, headers: XHR, body: { current_password: 'old-user-password', new_password: 'new-user-password' } });
      expect(changed.status).toBe(200);
      expect((await rotating.request('GET', '/api/status', { cookie: sessionCookieOf(changed.headers) })).status).toBe(200);
    } finally {
      await rotating.close();
    }
  });

  it('creates an emergency admin whose temporary password must be changed first', async () => {
    const { email, password } = await quarry.ctx.auth.recover();
    const login = await quarry.request('POST', '/api/auth/login', { body: { email, password } });
    expect(login.json.password_change_required).toBe(true);
    const cookie = sessionCookieOf(login.headers);
    expect((await quarry.request('GET', '/api/users', { cookie })).status).toBe(403);
    const changed = await quarry.request('POST', '/api/auth/password', { cookie, headers: XHR, body: { current_password: password, new_password: 'recovered-admin-pw' } });
    expect((await quarry.request('GET', '/api/users', { cookie: sessionCookieOf(changed.headers) })).status).toBe(200);
  });

  it('keeps an audit log for admins, without secrets', async () => {
    await quarry.request('POST', '/api/auth/login', { body: { email: EMAILS.viewer, password: 'not-the-password' } });
    const created = await quarry.request('POST', '/api/auth/api-keys', { as: 'editor', body: { name: 'audited' } });
    await quarry.request('DELETE', `/api/auth/api-keys/${created.json.id}`, { as: 'editor' });
    expect((await quarry.request('GET', '/api/audit', { as: 'editor' })).status).toBe(403);
    const log = await quarry.request('GET', '/api/audit?limit=500', { as: 'admin' });
    expect(log.status).toBe(200);
    const events = new Set(log.json.map((entry: { event: string }) => entry.event));
    for (const event of ['login_succeeded', 'login_failed', 'api_key_created', 'api_key_revoked', '2fa_enabled', '2fa_disabled', 'password_changed', 'user_added', 'recovery_admin_created']) {
      expect(events).toContain(event);
    }
    expect(log.text).not.toContain(created.json.key);
    expect(log.text).not.toContain('not-the-password');
    expect(log.text).not.toContain(PASSWORDS.viewer);
    expect((await quarry.request('GET', '/api/audit?limit=0', { as: 'admin' })).status).toBe(400);
  });
});
