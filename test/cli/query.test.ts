import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { freePort } from '../support/free-port.ts';
import { createApiKey, QUARRY_BIN, spawnQuarry } from '../support/quarry-process.ts';

function quarry(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(QUARRY_BIN, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.on('close', (code) => { resolve({ code, stdout, stderr }); });
  });
}

function lastAudit(dir: string): { event: string; actor_email: string } {
  const database = new DatabaseSync(path.join(dir, '.quarry', 'platform.db'), { readOnly: true });
  try {
    return database.prepare('SELECT event, actor_email FROM audit_events ORDER BY id DESC LIMIT 1').get() as { event: string; actor_email: string };
  } finally {
    database.close();
  }
}

describe('quarry query', () => {
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'quarry-query-cli-'));
    const init = await quarry(['init', dir, '--admin-email', 'a@example.com', '--non-interactive'], { QUARRY_ADMIN_PASSWORD: 'a-good-password' });
    expect(init.code).toBe(0);
    writeFileSync(path.join(dir, '.quarry', 'sources.yml'), 'sources:\n  - name: orders\n    type: local_files\n    local_files:\n      directory: data/orders\n');
    mkdirSync(path.join(dir, 'data', 'orders'), { recursive: true });
    writeFileSync(path.join(dir, 'data', 'orders', 'a.csv'), 'id,city\n1,Oslo\n2,"Paris, FR"\n');
    const synced = await quarry(['sync', 'orders', '--project', dir]);
    expect(synced.code).toBe(0);
  }, 120_000);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints a table, CSV or JSON from the warehouse read-only when no Quarry runs, and audits it', async () => {
    const sql = 'SELECT id, city FROM raw_orders.orders ORDER BY id';
    const table = await quarry(['query', sql, '--project', dir]);
    expect(table).toEqual({ code: 0, stderr: '', stdout: 'id  city\n1   Oslo\n2   Paris, FR\n(2 rows)\n' });
    expect(lastAudit(dir)).toEqual({ event: 'query', actor_email: expect.stringMatching(/^cli:/) });
    const csv = await quarry(['query', sql, '--project', dir, '--format', 'csv']);
    expect(csv.stdout).toBe('id,city\n1,Oslo\n2,"Paris, FR"\n');
    const json = await quarry(['query', sql, '--project', dir, '--format', 'json', '--limit', '1']);
    expect(JSON.parse(json.stdout)).toEqual({
      columns: [{ name: 'id', type: 'BIGINT' }, { name: 'city', type: 'VARCHAR' }], rows: [['1', 'Oslo']], row_count: 1, truncated: true,
    });
  }, 60_000);

  it('refuses what is not a query with one line and exit code 1', async () => {
    const refused = await quarry(['query', 'DROP TABLE raw_orders.orders', '--project', dir]);
    expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/^quarry: Only SELECT, WITH, SHOW, DESCRIBE and EXPLAIN queries are allowed[^\n]*\n$/);
    const badFormat = await quarry(['query', 'SELECT 1', '--project', dir, '--format', 'xml']);
    expect({ code: badFormat.code, stderr: badFormat.stderr }).toEqual({ code: 1, stderr: 'quarry: --format must be one of table, csv, json\n' });
  }, 60_000);

  it('asks the running Quarry when one serves the project and QUARRY_API_KEY holds a key', async () => {
    const port = await freePort();
    const projectFile = path.join(dir, '.quarry', 'project.yml');
    const config = parse(readFileSync(projectFile, 'utf8')) as { web?: Record<string, unknown> };
    writeFileSync(projectFile, stringify({ ...config, web: { ...config.web, port } }));
    const server = await spawnQuarry(dir, { port });
    try {
      const key = await createApiKey(server.url, { email: 'a@example.com', password: 'a-good-password' });
      const answer = await quarry(['query', 'SELECT count(*) AS n FROM raw_orders.orders', '--project', dir, '--format', 'csv'], { QUARRY_API_KEY: key });
      expect(answer).toEqual({ code: 0, stderr: '', stdout: 'n\n2\n' });
      expect(lastAudit(dir)).toEqual({ event: 'query', actor_email: 'a@example.com' });
    } finally {
      server.child.kill('SIGTERM');
      await new Promise((resolve) => server.child.once('exit', resolve));
    }
  }, 120_000);
});
