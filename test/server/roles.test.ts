import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

describe('roles', () => {
  let quarry: TestQuarry;
  beforeAll(async () => {
    quarry = await startQuarry();
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('lets every role read the platform endpoints and its own account', async () => {
    for (const role of ['admin', 'editor', 'viewer'] as const) {
      for (const path of ['/api/status', '/api/config', '/api/health/platform', '/api/watcher/status', '/api/auth/me', '/api/auth/api-keys']) {
        expect({ role, path, status: (await quarry.request('GET', path, { as: role })).status }).toEqual({ role, path, status: 200 });
      }
    }
  });

  it('keeps user administration to admins', async () => {
    for (const role of ['editor', 'viewer'] as const) {
      const list = await quarry.request('GET', '/api/users', { as: role });
      expect(list.status).toBe(403);
      expect(list.json.code).toBe('forbidden');
      const add = await quarry.request('POST', '/api/users', { as: role, body: { email: `x-${role}@test.local`, role: 'admin', password: 'long-enough-pw' } });
      expect(add.status).toBe(403);
      expect(await quarry.ctx.store.users.findByEmail(`x-${role}@test.local`)).toBeUndefined();
    }
  });

  it('lets an admin add, change and delete a user', async () => {
    const added = await quarry.request('POST', '/api/users', { as: 'admin', body: { email: 'New@Test.local', name: 'New', role: 'viewer', password: 'new-user-password' } });
    expect(added.status).toBe(201);
    expect(added.json).toEqual({ email: 'new@test.local', name: 'New', role: 'viewer', active: true, created_at: expect.any(String) });
    const duplicate = await quarry.request('POST', '/api/users', { as: 'admin', body: { email: 'new@test.local', role: 'viewer', password: 'new-user-password' } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.json.code).toBe('user_exists');
    const weak = await quarry.request('POST', '/api/users', { as: 'admin', body: { email: 'weak@test.local', role: 'viewer', password: 'short' } });
    expect(weak.status).toBe(400);
    expect(weak.json.code).toBe('weak_password');
    const changed = await quarry.request('PATCH', '/api/users/new@test.local', { as: 'admin', body: { role: 'editor' } });
    expect(changed.json.role).toBe('editor');
    const empty = await quarry.request('PATCH', '/api/users/new@test.local', { as: 'admin', body: {} });
    expect(empty.status).toBe(400);
    const deleted = await quarry.request('DELETE', '/api/users/new@test.local', { as: 'admin' });
    expect(deleted.json).toEqual({ success: true });
    expect((await quarry.request('DELETE', '/api/users/new@test.local', { as: 'admin' })).json.code).toBe('user_not_found');
  });

  it('does not let an admin lock themselves out', async () => {
    const response = await quarry.request('PATCH', '/api/users/admin@test.local', { as: 'admin', body: { active: false } });
    expect(response.status).toBe(403);
    expect(response.json).toEqual({ detail: 'You cannot demote or deactivate yourself; ask another admin', code: 'forbidden' });
    expect((await quarry.ctx.store.users.findByEmail('admin@test.local'))?.active).toBe(true);
  });

  it('signs a user out everywhere when their role changes', async () => {
    await quarry.ctx.auth.addUser({ email: 'mover@test.local', role: 'viewer', password: 'mover-password' });
    const login = await quarry.request('POST', '/api/auth/login', { body: { email: 'mover@test.local', password: 'mover-password' } });
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    expect((await quarry.request('GET', '/api/auth/me', { cookie })).status).toBe(200);
    await quarry.request('PATCH', '/api/users/mover@test.local', { as: 'admin', body: { role: 'editor' } });
    expect((await quarry.request('GET', '/api/auth/me', { cookie })).status).toBe(401);
  });
});
