import { afterEach, describe, expect, it } from 'vitest';
import { RestartPolicy } from './restart-policy.ts';

describe('RestartPolicy', () => {
  let policy: RestartPolicy | undefined;
  afterEach(() => { policy?.cancel(); });

  it('backs off 1 s, 2 s, 4 s, 8 s and gives up at the fifth exit within a minute', () => {
    let now = 0;
    policy = new RestartPolicy(() => now);
    const delays = [];
    for (let exit = 0; exit < 5; exit++) {
      delays.push(policy.restartLater(() => undefined));
      now += 1000;
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, undefined]);
  });

  it('forgets exits older than a minute', () => {
    let now = 0;
    policy = new RestartPolicy(() => now);
    for (let exit = 0; exit < 4; exit++) policy.restartLater(() => undefined);
    now += 61_000;
    expect(policy.restartLater(() => undefined)).toBe(1000);
  });
});
