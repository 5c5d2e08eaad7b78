import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { QUARRY_BIN } from '../support/quarry-process.ts';
import { sessionCookieOf } from '../support/quarry.ts';

const dir = path.join(mkdtempSync(path.join(tmpdir(), 'quarry-demo-start-')), 'demo');

afterAll(() => {
  rmSync(path.dirname(dir), { recursive: true, force: true });
});

describe('`quarry demo`, the README\'s first command, on a fresh folder', () => {
  it('prints the URL and the admin login, loads the sample data, builds the models and opens the dashboard on them', { timeout: 300_000 }, async () => {
    const child = spawn(QUARRY_BIN, ['demo', '--dir', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let output = '';
      const login = await new Promise<{ url: string; email: string; password: string }>((resolve, reject) => {
        child.stdout.setEncoding('utf8');
        child.stdout.on('data', (chunk: string) => {
          output += chunk;
          const url = /Quarry demo is running at (http:\/\/\S+)/.exec(output)?.[1];
          const credentials = /Sign in as (\S+) with password (\S+)/.exec(output);
          if (url !== undefined && credentials?.[1] !== undefined && credentials[2] !== undefined) resolve({ url, email: credentials[1], password: credentials[2] });
        });
        child.on('exit', (code) => { reject(new Error(`exited ${String(code)}: ${output}`)); });
      });
      const response = await fetch(`${login.url}/api/auth/login`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: login.email, password: login.password }),
      });
      expect(response.status).toBe(200);
      const headers = { cookie: sessionCookieOf(response.headers), accept: 'application/json' };

      // Nobody presses anything: the first start syncs the sample files, auto_transform runs every model,
      // and the dashboard tool registers the marts and creates the shipped dashboard.
      const landing = async () => (await fetch(`${login.url}/dashboard/`, { headers, redirect: 'manual' })).headers.get('location');
      await expect.poll(landing, { timeout: 240_000, interval: 1000 }).toBe('/dashboard/superset/dashboard/sales/');
      const models = await (await fetch(`${login.url}/api/transform/models`, { headers })).json() as { models: { name: string; status: string }[] };
      expect(models.models.map((model) => model.status)).toEqual(models.models.map(() => 'success'));
      const source = await (await fetch(`${login.url}/api/sources/orders/details`, { headers })).json() as { row_count: number };
      expect(source.row_count).toBe(240);
    } finally {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
  });
});
