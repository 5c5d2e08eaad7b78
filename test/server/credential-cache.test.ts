// Sessions and API keys are resolved from a cache between changes: every change that takes access away must count
// from the very next request, also while requests keep arriving, and also when another process made it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Role } from '../../src/store/index.ts';
import { onPlatformStore } from '../support/platform-sql.ts';
import { sessionCookieOf, startQuarry, type TestQuarry } from '../support/quarry.ts';

const XHR = { 'x-requested-with': 'XMLHttpRequest' };

describe('credential cache', () => {
  let quarry: TestQuarry;
  let users = 0;
  beforeAll(async () => {
    quarry = await startQuarry();
  });
  afterAll(async () => {
    await quarry.close();
  });

  /** A fresh user signed in, with an API key: its own credentials, so no other test shares them. */
  const newUser = async (role: Role): Promise<{ email: string; cookie: string; key: string; keyId: string; password: string }> => {
    users += 1;
    const email = `cached-${String(users)}@test.local`;
    const password = `cached-password-${String(users)}`;
    await quarry.ctx.auth.addUser({ email, role, password });
    const cookie = sessionCookieOf((await quarry.request('POST', '/api/auth/login', { body: { email, password } })).headers);
    const created = await quarry.request('POST', '/api/auth/api-keys', { cookie, headers: XHR, body: { name: 'cached' } });
    return { email, cookie, key: created.json.key, keyId: created.json.id, password };
  };

  /**
   * Keeps `workers` requests in flight with `credentials` until stopped, then returns the statuses of the requests
   * that were sent after `cutoff()` became true: what the server answered once the change had been made.
   */
  const underLoad = (url: string, credentials: { cookie?: string; apiKey?: string }, workers = 16) => {
    let stopped = false;
    let changedAt: number | undefined;
    const afterChange: number[] = [];
    const running = Array.from({ length: workers }, async () => {
      while (!stopped) {
        const sentAt = performance.now();
        const { status } = await quarry.request('GET', url, credentials);
        if (changedAt !== undefined && sentAt > changedAt) afterChange.push(status);
      }
    });
    return {
      /** Marks the change as made: it has been answered, so any request sent from now on must see it. */
      changed: () => { changedAt = performance.now(); },
      stop: async (): Promise<number[]> => {
        // Let a good number of requests go out after the change before stopping.
        while (afterChange.length < workers * 5) await new Promise((resolve) => { setImmediate(resolve); });
        stopped = true;
        await Promise.all(running);
        return afterChange;
      },
    };
  };

  /** Runs `statement` on the platform store from a separate process, as the CLI or another process of a deployment would while the server runs. */
  const fromAnotherProcess = async (statement: string, ...parameters: (string | number)[]): Promise<void> => {
    await onPlatformStore(quarry.ctx, statement, ...parameters);
  };

  it('refuses a revoked API key on the next request while the key is under load', async () => {
    const user = await newUser('editor');
    const load = underLoad('/api/status', { apiKey: user.key });
    expect((await quarry.request('DELETE', `/api/auth/api-keys/${user.keyId}`, { cookie: user.cookie, headers: XHR })).status).toBe(200);
    load.changed();
    const statuses = await load.stop();
    expect(new Set(statuses)).toEqual(new Set([401]));
  });

  it('refuses a logged-out session on the next request while the session is under load', async () => {
    const user = await newUser('viewer');
    const load = underLoad('/api/status', { cookie: user.cookie });
    expect((await quarry.request('POST', '/api/auth/logout', { cookie: user.cookie, headers: XHR })).status).toBeLessThan(400);
    load.changed();
    expect(new Set(await load.stop())).toEqual(new Set([401]));
  });

  it('refuses a deactivated user\'s session and key on the next request under load', async () => {
    const user = await newUser('editor');
    const bySession = underLoad('/api/status', { cookie: user.cookie }, 8);
    const byKey = underLoad('/api/status', { apiKey: user.key }, 8);
    expect((await quarry.request('PATCH', `/api/users/${user.email}`, { as: 'admin', body: { active: false } })).status).toBe(200);
    bySession.changed();
    byKey.changed();
    expect(new Set(await bySession.stop())).toEqual(new Set([401]));
    expect(new Set(await byKey.stop())).toEqual(new Set([401]));
  });

  it('applies a demotion on the next request under load', async () => {
    const user = await newUser('admin');
    expect((await quarry.request('GET', '/api/users', { apiKey: user.key })).status).toBe(200);
    const load = underLoad('/api/users', { apiKey: user.key });
    expect((await quarry.request('PATCH', `/api/users/${user.email}`, { as: 'admin', body: { role: 'viewer' } })).status).toBe(200);
    load.changed();
    expect(new Set(await load.stop())).toEqual(new Set([403]));
  });

  it('signs out the other sessions and, when asked, the keys of a password change at once', async () => {
    const user = await newUser('viewer');
    const other = sessionCookieOf((await quarry.request('POST', '/api/auth/login', { body: { email: user.email, password: user.password } })).headers);
    expect((await quarry.request('GET', '/api/status', { cookie: other })).status).toBe(200);
    expect((await quarry.request('GET', '/api/status', { apiKey: user.key })).status).toBe(200);
    const changed = await quarry.request('POST', '/api/auth/password', {
      cookie: user.cookie, headers: XHR, body: { current_password: user.password, new_password: 'a-whole-new-password', revoke_api_keys: true },
    });
    expect(changed.status).toBe(200);
    expect((await quarry.request('GET', '/api/status', { cookie: other })).status).toBe(401);
    expect((await quarry.request('GET', '/api/status', { apiKey: user.key })).status).toBe(401);
  });

  it('refuses a cached session past its idle timeout and a cached key past its expiry', async () => {
    const user = await newUser('viewer');
    const expiresAt = new Date(quarry.clock.now().getTime() + 3600_000).toISOString().slice(0, 19);
    const expiring = await quarry.request('POST', '/api/auth/api-keys', { cookie: user.cookie, headers: XHR, body: { name: 'expiring', expires_at: expiresAt } });
    expect((await quarry.request('GET', '/api/status', { apiKey: expiring.json.key })).status).toBe(200);
    expect((await quarry.request('GET', '/api/status', { cookie: user.cookie })).status).toBe(200);
    quarry.clock.advance(3601_000);
    expect((await quarry.request('GET', '/api/status', { apiKey: expiring.json.key })).status).toBe(401);
    expect((await quarry.request('GET', '/api/status', { cookie: user.cookie })).status).toBe(200);
    quarry.clock.advance(quarry.ctx.config.auth.idle_timeout_minutes * 60_000 + 1000);
    expect((await quarry.request('GET', '/api/status', { cookie: user.cookie })).status).toBe(401);
  });

  it('refuses a key revoked by another process on the next request while the key is under load', async () => {
    const user = await newUser('editor');
    const load = underLoad('/api/status', { apiKey: user.key });
    await fromAnotherProcess('UPDATE api_keys SET revoked_at = ? WHERE id = ?', new Date().toISOString(), user.keyId);
    load.changed();
    expect(new Set(await load.stop())).toEqual(new Set([401]));
  });

  it('sees revocations, deactivations, role changes and ended sessions made by another process on the next request', async () => {
    const revoked = await newUser('editor');
    expect((await quarry.request('GET', '/api/status', { apiKey: revoked.key })).status).toBe(200);
    await fromAnotherProcess('UPDATE api_keys SET revoked_at = ? WHERE id = ?', new Date().toISOString(), revoked.keyId);
    expect((await quarry.request('GET', '/api/status', { apiKey: revoked.key })).status).toBe(401);

    const deactivated = await newUser('editor');
    expect((await quarry.request('GET', '/api/status', { cookie: deactivated.cookie })).status).toBe(200);
    await fromAnotherProcess('UPDATE users SET active = 0 WHERE email = ?', deactivated.email);
    expect((await quarry.request('GET', '/api/status', { cookie: deactivated.cookie })).status).toBe(401);

    const demoted = await newUser('admin');
    expect((await quarry.request('GET', '/api/users', { apiKey: demoted.key })).status).toBe(200);
    await fromAnotherProcess('UPDATE users SET role = ? WHERE email = ?', 'viewer', demoted.email);
    expect((await quarry.request('GET', '/api/users', { apiKey: demoted.key })).status).toBe(403);

    const ended = await newUser('viewer');
    expect((await quarry.request('GET', '/api/status', { cookie: ended.cookie })).status).toBe(200);
    await fromAnotherProcess('DELETE FROM sessions WHERE user_id = (SELECT id FROM users WHERE email = ?)', ended.email);
    expect((await quarry.request('GET', '/api/status', { cookie: ended.cookie })).status).toBe(401);
  });
});

describe('credential generation', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'quarry-credential-generation-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // A column added to these tables later must either bump the generation or be named here as bookkeeping.
  const BOOKKEEPING: Record<string, readonly string[]> = { users: [], sessions: ['last_seen_at'], api_keys: ['last_used_at'] };

  it('moves on a change to any column of users, sessions and API keys but their bookkeeping columns', async () => {
    const store = openStore(path.join(dir, 'platform.db'));
    try {
      const user = await store.users.insert({ email: 'columns@test.local', name: '', role: 'viewer', passwordHash: null }, new Date().toISOString());
      await store.sessions.insert({ id: 's1', tokenHash: 'h1', userId: user.id, stage: 'full', ip: '', userAgent: '' }, new Date().toISOString());
      await store.apiKeys.insert({ id: 'k1', userId: user.id, name: 'k', keyHash: 'kh1', prefix: 'svc_ak_', expiresAt: null }, new Date().toISOString());
      // A raw connection, as another process would have: this test needs UPDATE statements no repository has.
      const { DatabaseSync } = await import('node:sqlite');
      const database = new DatabaseSync(path.join(dir, 'platform.db'));
      try {
        for (const [table, bookkeeping] of Object.entries(BOOKKEEPING)) {
          const columns = (database.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((column) => column.name);
          for (const column of columns) {
            const before = await store.credentialGeneration.current();
            database.exec(`UPDATE ${table} SET ${column} = ${column}`);
            const moved = (await store.credentialGeneration.current()) !== before;
            expect({ table, column, moved }).toEqual({ table, column, moved: !bookkeeping.includes(column) });
          }
        }
        const beforeDelete = await store.credentialGeneration.current();
        database.exec('DELETE FROM api_keys');
        expect(await store.credentialGeneration.current()).toBe(beforeDelete + 1);
      } finally {
        database.close();
      }
    } finally {
      await store.close();
    }
  });
});
