import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_COST } from '../../src/auth/index.ts';
import { requestFrom } from '../support/http-from.ts';
import { EMAILS, startQuarry, type TestQuarry } from '../support/quarry.ts';

const ROUNDS = 9;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

describe('login failure timing', () => {
  let quarry: TestQuarry;
  beforeAll(async () => {
    // The real cost: at bcrypt's minimum, the request's own time would hide what the comparison costs.
    quarry = await startQuarry({ passwordCost: PASSWORD_COST });
    await quarry.ctx.auth.addUser({ email: 'inactive@test.local', role: 'viewer', password: 'inactive-password' });
    const admin = (await quarry.ctx.auth.actorFromSessionToken((await quarry.login('admin')).split('=')[1]!))!.actor;
    await quarry.ctx.auth.updateUser(admin, 'inactive@test.local', { active: false });
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('takes as long for a wrong password, an unknown email and an inactive account (medians within 15%)', async () => {
    const kinds = {
      wrongPassword: { email: EMAILS.viewer, password: 'wrong-password' },
      unknownEmail: { email: 'nobody@test.local', password: 'wrong-password' },
      inactiveAccount: { email: 'inactive@test.local', password: 'inactive-password' },
    };
    const timings: Record<keyof typeof kinds, number[]> = { wrongPassword: [], unknownEmail: [], inactiveAccount: [] };
    let address = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const [kind, body] of Object.entries(kinds) as [keyof typeof kinds, { email: string; password: string }][]) {
        address += 1;
        // A fresh client address each time, so neither lockout nor the login rate limit applies.
        const from = `127.0.${String(10 + Math.floor(address / 250))}.${String(1 + (address % 250))}`;
        const started = process.hrtime.bigint();
        const response = await requestFrom(from, `${quarry.url}/api/auth/login`, { method: 'POST', body });
        timings[kind].push(Number(process.hrtime.bigint() - started) / 1e6);
        expect(response.status).toBe(401);
        expect(response.body).toEqual({ detail: 'Invalid email or password', code: 'invalid_credentials' });
      }
    }
    const medians = Object.values(timings).map(median);
    const fastest = Math.min(...medians);
    const slowest = Math.max(...medians);
    expect(slowest / fastest, `medians ${medians.map((value) => value.toFixed(1)).join(', ')} ms`).toBeLessThanOrEqual(1.15);
  });
});
