import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestFrom } from '../support/http-from.ts';
import { EMAILS, PASSWORDS, startQuarry, type TestQuarry } from '../support/quarry.ts';

describe('lockout and rate limits', () => {
  let quarry: TestQuarry;
  beforeAll(async () => {
    quarry = await startQuarry({ projectConfig: { limits: { login_requests_per_minute: 30, api_requests_per_minute: 12 } } });
  });
  afterAll(async () => {
    await quarry.close();
  });

  const login = (from: string, email: string, password: string) =>
    requestFrom(from, `${quarry.url.replace('127.0.0.1', '127.0.0.1')}/api/auth/login`, { method: 'POST', body: { email, password } });

  it.each([
    ['an existing user', EMAILS.viewer],
    ['an unknown email', 'ghost@test.local'],
  ])('locks the (IP, email) pair of %s at the 5th failure, for 15 minutes, even for the right password', async (_kind, email) => {
    const ip = email === EMAILS.viewer ? '127.0.0.11' : '127.0.0.12';
    for (let attempt = 1; attempt <= 5; attempt++) {
      expect((await login(ip, email, 'wrong-password')).status).toBe(401);
    }
    const locked = await login(ip, email, email === EMAILS.viewer ? PASSWORDS.viewer : 'wrong-password');
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual({ detail: 'Too many failed logins: try again in 15 minutes', code: 'locked_out' });
    expect(locked.headers['retry-after']).toBe('900');
    expect(locked.headers['set-cookie']).toBeUndefined();

    expect((await login('127.0.0.13', email, 'wrong-password')).status).toBe(401);

    quarry.clock.advance(10 * 60_000);
    const later = await login(ip, email, 'wrong-password');
    expect(later.status).toBe(429);
    expect(later.headers['retry-after']).toBe('300');
    quarry.clock.advance(5 * 60_000 + 1000);
    if (email === EMAILS.viewer) expect((await login(ip, email, PASSWORDS.viewer)).status).toBe(200);
    else expect((await login(ip, email, 'wrong-password')).status).toBe(401);
  });

  it('is lifted by unlock, which clears the counter', async () => {
    const ip = '127.0.0.14';
    for (let attempt = 1; attempt <= 5; attempt++) await login(ip, EMAILS.editor, 'wrong-password');
    expect((await login(ip, EMAILS.editor, PASSWORDS.editor)).status).toBe(429);
    expect(await quarry.ctx.auth.unlock('Editor@Test.local')).toBe(1);
    expect((await login(ip, EMAILS.editor, PASSWORDS.editor)).status).toBe(200);
  });

  it('limits /api requests per client address, with the contract headers, and exempts loopback 127.0.0.1', async () => {
    const ip = '127.0.0.21';
    const statuses: number[] = [];
    let last = await requestFrom(ip, `${quarry.url}/api/status`);
    statuses.push(last.status);
    for (let index = 1; index < 13; index++) {
      last = await requestFrom(ip, `${quarry.url}/api/status`);
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 12)).toEqual(Array(12).fill(401));
    expect(last.status).toBe(429);
    expect(last.body).toEqual({ detail: expect.stringContaining('Too many requests'), code: 'rate_limited' });
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
    expect(last.headers['ratelimit-limit']).toBe('12');
    expect(last.headers['ratelimit-remaining']).toBe('0');
    expect(Number(last.headers['ratelimit-reset'])).toBeGreaterThan(0);

    expect((await requestFrom('127.0.0.22', `${quarry.url}/api/status`)).status).toBe(401);
    for (let index = 0; index < 20; index++) {
      expect((await requestFrom('127.0.0.1', `${quarry.url}/api/status`)).status).toBe(401);
    }
  });

  it('does not limit pages outside /api', async () => {
    for (let index = 0; index < 15; index++) {
      expect((await requestFrom('127.0.0.23', `${quarry.url}/login`)).status).toBe(200);
    }
  });
});

describe('login rate limit', () => {
  let quarry: TestQuarry;
  beforeAll(async () => {
    quarry = await startQuarry({ users: [] });
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('allows 10 login requests a minute from one address, then answers 429 rate_limited', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 11; index++) {
      const email = `user${String(index)}@test.local`;
      statuses.push((await requestFrom('127.0.0.31', `${quarry.url}/api/auth/login`, { method: 'POST', body: { email, password: 'whatever-password' } })).status);
    }
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
    const other = await requestFrom('127.0.0.31', `${quarry.url}/api/status`);
    expect(other.status).toBe(401);
  });
});
