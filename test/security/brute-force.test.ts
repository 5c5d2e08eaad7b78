import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestFrom } from '../support/http-from.ts';
import { sessionCookieOf, startQuarry, type TestQuarry } from '../support/quarry.ts';

/**
 * The class: every secret a user types (password, current password, two-factor code) is guessed by someone,
 * so each route that checks one is rate-limited as a login and its failures lock, audit-logged.
 */

const XHR = { 'x-requested-with': 'XMLHttpRequest' };
const LOGIN_LIMIT = 7;
/** Request-body fields that carry a secret the user types. */
const TYPED_SECRET = /password|code/;
/** Operations that set a secret rather than check one: nothing to guess there. */
const SETS_A_SECRET = new Set(['POST /api/users']);

describe('brute force on every secret a user types', () => {
  let quarry: TestQuarry;
  beforeAll(async () => {
    quarry = await startQuarry({ projectConfig: { limits: { login_requests_per_minute: LOGIN_LIMIT, api_requests_per_minute: 100 } } });
  });
  afterAll(async () => {
    await quarry.close();
  });

  const login = async (email: string, password: string) => quarry.request('POST', '/api/auth/login', { body: { email, password } });
  const codeAt = (secret: string): string => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate({ timestamp: quarry.clock.now().getTime() });
  /** Another code than the current one, and than the ones a step either side (all three are accepted). */
  const wrongCode = (secret: string): string => {
    const accepted = new Set([-30_000, 0, 30_000].map((offset) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) })
      .generate({ timestamp: quarry.clock.now().getTime() + offset })));
    let candidate = 0;
    while (accepted.has(String(candidate).padStart(6, '0'))) candidate++;
    return String(candidate).padStart(6, '0');
  };
  const verify = (cookie: string, code: string) => quarry.request('POST', '/api/auth/2fa/verify', { cookie, headers: XHR, body: { code } });
  const auditEvents = async (email: string) => (await quarry.ctx.auth.auditLog(1000)).filter((entry) => entry.actorEmail === email).map((entry) => entry.event).reverse();

  /** A user with two-factor on; returns the TOTP secret. */
  async function twoFactorUser(email: string, password: string): Promise<string> {
    await quarry.ctx.auth.addUser({ email, role: 'viewer', password });
    const cookie = sessionCookieOf((await login(email, password)).headers);
    const { json } = await quarry.request('POST', '/api/auth/2fa/setup', { cookie, headers: XHR });
    expect((await quarry.request('POST', '/api/auth/2fa/enable', { cookie, headers: XHR, body: { code: codeAt(json.secret as string) } })).status).toBe(200);
    quarry.clock.advance(30_000);
    return json.secret as string;
  }

  it('ends a two-factor login at its 5th wrong code, audit-logged, so the right code no longer completes it', async () => {
    const secret = await twoFactorUser('guessed@test.local', 'guessed-password-1');
    const partial = sessionCookieOf((await login('guessed@test.local', 'guessed-password-1')).headers);
    for (let attempt = 1; attempt <= 4; attempt++) {
      const wrong = await verify(partial, wrongCode(secret));
      expect({ attempt, status: wrong.status, body: wrong.json }).toEqual({
        attempt, status: 400, body: { detail: 'The two-factor code is wrong, expired or already used', code: 'invalid_totp_code' },
      });
    }
    const fifth = await verify(partial, wrongCode(secret));
    expect(fifth.status).toBe(401);
    expect(fifth.json).toEqual({ detail: '5 wrong two-factor codes: this login has ended; log in again with your password', code: 'two_factor_attempts_exhausted' });
    const right = await verify(partial, codeAt(secret));
    expect({ status: right.status, body: right.json }).toEqual({ status: 401, body: { detail: 'Authentication required', code: 'unauthenticated' } });
    expect((await auditEvents('guessed@test.local')).slice(-6)).toEqual(['login_password_ok_2fa_pending', ...Array(5).fill('2fa_failed'), '2fa_login_ended'].slice(-6));

    // Logging in again gives a new login with its own attempts; the right code completes it.
    const again = sessionCookieOf((await login('guessed@test.local', 'guessed-password-1')).headers);
    expect((await verify(again, codeAt(secret))).json).toEqual({ success: true, requires_2fa: false, redirect: '/' });
  });

  it('locks the user\'s two-factor step for 15 minutes at the 10th wrong code over several logins, even for the right code', async () => {
    const secret = await twoFactorUser('sprayed@test.local', 'sprayed-password-1');
    for (let round = 0; round < 2; round++) {
      const partial = sessionCookieOf((await login('sprayed@test.local', 'sprayed-password-1')).headers);
      for (let attempt = 1; attempt <= 4; attempt++) expect((await verify(partial, wrongCode(secret))).status).toBe(400);
      expect((await verify(partial, wrongCode(secret))).status).toBe(round === 0 ? 401 : 429);
    }
    const partial = sessionCookieOf((await login('sprayed@test.local', 'sprayed-password-1')).headers);
    const locked = await verify(partial, codeAt(secret));
    expect(locked.status).toBe(429);
    expect(locked.json).toEqual({ detail: 'Too many failed logins: try again in 15 minutes', code: 'locked_out' });
    expect(locked.headers.get('retry-after')).toBe('900');
    expect(await auditEvents('sprayed@test.local')).toContain('2fa_locked_out');

    quarry.clock.advance(15 * 60_000 + 1000);
    const later = sessionCookieOf((await login('sprayed@test.local', 'sprayed-password-1')).headers);
    expect((await verify(later, codeAt(secret))).status).toBe(200);
  });

  it('is lifted by unlock', async () => {
    const secret = await twoFactorUser('unlocked@test.local', 'unlocked-password-1');
    for (let round = 0; round < 2; round++) {
      const partial = sessionCookieOf((await login('unlocked@test.local', 'unlocked-password-1')).headers);
      for (let attempt = 1; attempt <= 5; attempt++) await verify(partial, wrongCode(secret));
    }
    const partial = sessionCookieOf((await login('unlocked@test.local', 'unlocked-password-1')).headers);
    expect((await verify(partial, codeAt(secret))).status).toBe(429);
    expect(await quarry.ctx.auth.unlock('unlocked@test.local')).toBe(1);
    const fresh = sessionCookieOf((await login('unlocked@test.local', 'unlocked-password-1')).headers);
    expect((await verify(fresh, codeAt(secret))).status).toBe(200);
  });

  it('counts wrong codes sent to turn two-factor off toward the same lock', async () => {
    const secret = await twoFactorUser('switcher@test.local', 'switcher-password-1');
    const partial = sessionCookieOf((await login('switcher@test.local', 'switcher-password-1')).headers);
    const full = sessionCookieOf((await verify(partial, codeAt(secret))).headers);
    const disable = (code: string) => quarry.request('POST', '/api/auth/2fa/disable', { cookie: full, headers: XHR, body: { code } });
    for (let attempt = 1; attempt <= 9; attempt++) expect((await disable(wrongCode(secret))).status).toBe(400);
    expect((await disable(wrongCode(secret))).status).toBe(429);
    quarry.clock.advance(30_000);
    expect((await disable(codeAt(secret))).json.code).toBe('locked_out');
    expect((await quarry.request('GET', '/api/auth/me', { cookie: full })).json.two_factor_enabled).toBe(true);
  });

  it('locks a password change after 5 wrong current passwords, as it locks logins', async () => {
    await quarry.ctx.auth.addUser({ email: 'changer@test.local', role: 'viewer', password: 'changer-password-1' });
    const cookie = sessionCookieOf((await login('changer@test.local', 'changer-password-1')).headers);
    const change = (current: string) => quarry.request('POST', '/api/auth/password', {
      cookie, headers: XHR, body: { current_password: current, new_password: 'changer-password-2' },
    });
    for (let attempt = 1; attempt <= 5; attempt++) expect((await change(`guess-${String(attempt)}`)).json.code).toBe('invalid_credentials');
    const locked = await change('changer-password-1');
    expect(locked.status).toBe(429);
    expect(locked.json.code).toBe('locked_out');
    expect(await auditEvents('changer@test.local')).toContain('password_change_locked_out');
  });

  it('rate-limits every operation that takes a typed secret as a login, per client address', async () => {
    const document = (await quarry.request('GET', '/api/openapi.json', { as: 'admin' })).json as OpenApiDocument;
    const secretOperations = Object.entries(document.paths).flatMap(([path, operations]) => Object.entries(operations)
      .filter(([, operation]) => Object.keys(operation.requestBody?.content['application/json']?.schema.properties ?? {}).some((name) => TYPED_SECRET.test(name)))
      .map(([method]) => [method.toUpperCase(), path] as const))
      .filter(([method, path]) => !SETS_A_SECRET.has(`${method} ${path}`));
    expect(secretOperations.map(([method, path]) => `${method} ${path}`).sort()).toEqual([
      'POST /api/auth/2fa/disable', 'POST /api/auth/2fa/enable', 'POST /api/auth/2fa/verify', 'POST /api/auth/login', 'POST /api/auth/password',
    ]);
    for (const [index, [method, path]] of secretOperations.entries()) {
      const from = `127.0.5.${String(index + 1)}`;
      const statuses: number[] = [];
      for (let attempt = 0; attempt <= LOGIN_LIMIT; attempt++) {
        statuses.push((await requestFrom(from, `${quarry.url}${path}`, { method, body: { email: `x${String(attempt)}@test.local`, password: 'x', code: '000000' } })).status);
      }
      expect({ path, last: statuses.at(-1), before: statuses.slice(0, -1).includes(429) }).toEqual({ path, last: 429, before: false });
    }
  });
});

interface OpenApiDocument {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } } | undefined> } }>>;
}
