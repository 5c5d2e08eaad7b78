import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMAILS, PASSWORDS, startQuarry, type TestQuarry } from '../support/quarry.ts';

describe('the platform database locked by another process', () => {
  let quarry: TestQuarry;

  beforeAll(async () => {
    quarry = await startQuarry();
  });

  afterAll(async () => {
    await quarry.close();
  });

  it('answers 503 with Retry-After while the lock lasts, changes nothing, and serves normally once it ends', async () => {
    const other = new DatabaseSync(path.join(quarry.dir, '.quarry', 'platform.db'));
    other.exec('BEGIN EXCLUSIVE');
    try {
      const response = await fetch(`${quarry.url}/api/auth/login`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: EMAILS.admin, password: PASSWORDS.admin }),
      });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(await response.json()).toEqual({ detail: 'The platform database is locked by another process; try again in a moment', code: 'platform_db_busy' });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    const created = await quarry.request('POST', '/api/auth/api-keys', { as: 'admin', body: { name: 'after the lock' } });
    expect(created.status).toBe(201);
  }, 60_000);
});
