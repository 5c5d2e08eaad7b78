import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestFrom } from '../support/http-from.ts';
import { EMAILS, PASSWORDS, startQuarry, type TestQuarry } from '../support/quarry.ts';

describe('client address and session presets', () => {
  let quarry: TestQuarry;
  beforeAll(async () => {
    quarry = await startQuarry({ projectConfig: { trusted_proxies: ['127.0.0.51'], auth: { preset: 'cloud' } } });
  });
  afterAll(async () => {
    await quarry.close();
  });

  async function sessionIpAfterLogin(from: string, forwardedFor: string): Promise<string> {
    const login = await requestFrom(from, `${quarry.url}/api/auth/login`, {
      method: 'POST', body: { email: EMAILS.viewer, password: PASSWORDS.viewer }, headers: { 'x-forwarded-for': forwardedFor },
    });
    expect(login.status).toBe(200);
    const cookie = String(login.headers['set-cookie']?.[0]).split(';')[0]!;
    const sessions = await quarry.request('GET', '/api/auth/sessions', { cookie });
    return sessions.json.find((session: { current: boolean }) => session.current).ip;
  }

  it('believes X-Forwarded-For only from a trusted proxy', async () => {
    expect(await sessionIpAfterLogin('127.0.0.51', '203.0.113.7')).toBe('203.0.113.7');
    expect(await sessionIpAfterLogin('127.0.0.52', '203.0.113.7')).toBe('127.0.0.52');
  });

  it('applies the cloud preset: 60 idle minutes and 30 days at most', async () => {
    expect(quarry.ctx.config.auth).toEqual({ preset: 'cloud', session_max_days: 30, idle_timeout_minutes: 60, password_max_age_days: 0 });
    const cookie = await quarry.login('viewer');
    quarry.clock.advance(59 * 60_000);
    expect((await quarry.request('GET', '/api/auth/me', { cookie })).status).toBe(200);
    quarry.clock.advance(61 * 60_000);
    expect((await quarry.request('GET', '/api/auth/me', { cookie })).status).toBe(401);
  });
});
