import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerOf, records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { allowLoopback } from '../support/loopback-network.ts';
import { QUARRY_BIN } from '../support/quarry-process.ts';

let api: FakeApi;
const dir = mkdtempSync(path.join(tmpdir(), 'quarry-source-add-'));

/** Runs the CLI as a user would; asynchronous, so the fake API in this process keeps answering. */
function quarry(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(QUARRY_BIN, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    child.on('close', (code) => { resolve({ code, stdout, stderr }); });
  });
}

beforeAll(async () => {
  api = await startFakeApi((app) => {
    app.get('/api/people', (request, reply) => {
      if (bearerOf(request) !== 'tok-abc-123') return reply.code(401).send({ message: 'bad token' });
      return { data: records(25, (n) => ({ id: n, name: `person ${String(n)}` })) };
    });
  });
  const init = await quarry(['init', dir, '--admin-email', 'a@example.com', '--admin-password', 'a-good-password', '--non-interactive']);
  expect(init.code).toBe(0);
  await allowLoopback(dir);
}, 60_000);

afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('quarry source add (the form for scripts)', () => {
  it('writes the source to sources.yml and the credential to .env only, tests the connection and syncs', async () => {
    const added = await quarry([
      'source', 'add', '--project', dir, '--type', 'rest_api', '--name', 'people',
      '--set', `base_url=${api.url}/api`, '--set', 'auth_token_env=PEOPLE_TOKEN', '--set', 'endpoints.0.path=/people',
      '--set', 'endpoints.0.primary_key=id', '--secret', 'PEOPLE_TOKEN=tok-abc-123', '--test', '--sync',
    ]);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('Added the rest_api source "people"');
    expect(added.stdout).toContain('Connection test passed: Connected and read the first records.');
    expect(added.stdout).toContain('Synced people: 25 rows');
    const sourcesYml = readFileSync(path.join(dir, '.quarry', 'sources.yml'), 'utf8');
    expect(sourcesYml).toContain('# Sources Quarry loads'); // the header comment survives
    expect(sourcesYml).toContain('auth_token_env: PEOPLE_TOKEN');
    expect(sourcesYml).toMatch(/- name: people\n\s+type: rest_api\n\s+staging_column_names: snake_case\n/);
    expect(sourcesYml).not.toContain('tok-abc-123');
    expect(readFileSync(path.join(dir, '.env'), 'utf8')).toContain('PEOPLE_TOKEN=');

    const list = await quarry(['source', 'list', '--project', dir]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^NAME\s+TYPE\s+STATUS\s+ROWS\s+LAST SYNC\npeople\s+rest_api\s+synced\s+25\s+\d{4}-/);
    const resync = await quarry(['sync', 'people', '--project', dir, '--full-refresh']);
    expect(resync.code).toBe(0);
    expect(resync.stdout).toContain('Sync started (full refresh)');
  });

  it('a sync or a model run while another process holds the warehouse fails with one line saying where to run it from', async () => {
    const holder = await DuckDBInstance.create(path.join(dir, 'warehouse', 'writer.lock'));
    const busyLine = `The warehouse is open for writing in another process (process ${String(process.pid)}); `
      + 'do this from the running Quarry (its web UI or REST API), or stop it first';
    try {
      const busySync = await quarry(['sync', 'people', '--project', dir]);
      expect(busySync.code).toBe(1);
      expect(busySync.stderr.trim()).toBe(`quarry: the sync of people failed: ${busyLine}`);
      // dbt writes the lake from its own process: the model run holds the lock between processes for all of it.
      const busyRun = await quarry(['build', '--project', dir]);
      expect(busyRun.code).toBe(1);
      expect(busyRun.stderr.trim()).toBe(`quarry: The build failed: ${busyLine}`);
      expect(busyRun.stdout).toMatch(/stg_people__people\s+model\s+error\s+The warehouse is open for writing/);
    } finally {
      holder.closeSync();
    }
    expect((await quarry(['sync', 'people', '--project', dir])).code).toBe(0);
  });

  it('a failing connection test keeps the source and says how to retry', async () => {
    const added = await quarry([
      'source', 'add', '--project', dir, '--type', 'rest_api', '--name', 'wrong_token',
      '--set', `base_url=${api.url}/api`, '--set', 'auth_token_env=WRONG_TOKEN', '--set', 'endpoints.0.path=/people',
      '--secret', 'WRONG_TOKEN=nope', '--test',
    ]);
    expect(added.code).toBe(1);
    expect(added.stderr).toContain(`quarry: the connection test failed: GET ${api.url}/api/people answered 401 Unauthorized: bad token`);
    expect(added.stderr).toContain('quarry source test wrong_token');
    const again = await quarry(['source', 'test', 'wrong_token', '--project', dir], { WRONG_TOKEN: 'tok-abc-123' });
    expect(again.stdout.trim()).toBe('Connection test passed: Connected and read the first records.');
  });

  it('refuses types the wizard does not offer, unknown types, bad fields and taken names, writing nothing', async () => {
    const before = readFileSync(path.join(dir, '.quarry', 'sources.yml'), 'utf8');
    const hidden = await quarry(['source', 'add', '--project', dir, '--type', 'csv', '--name', 'x']);
    expect(hidden).toMatchObject({ code: 1, stderr: 'quarry: csv is not added with `quarry source add` or the Add source form: hidden; use local_files, or filesystem by hand for cloud object storage. Add it to sources.yml by hand.\n' });
    const unknown = await quarry(['source', 'add', '--project', dir, '--type', 'rest_apj', '--name', 'x']);
    expect(unknown.stderr.trim()).toBe('quarry: Unknown source type "rest_apj"; did you mean rest_api?');
    const bad = await quarry(['source', 'add', '--project', dir, '--type', 'crm_a', '--name', 'crm', '--set', 'resources=[contacts,planets]']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/sources\[\d+\]\.crm_a\.resources\[1\]/);
    const taken = await quarry(['source', 'add', '--project', dir, '--type', 'local_files', '--name', 'people', '--set', 'directory=data']);
    expect(taken.stderr.trim()).toBe('quarry: A source named "people" already exists');
    const quoted = await quarry(['source', 'add', '--project', dir, '--type', 'crm_a', '--name', 'quoted', '--secret', "CRM_A_API_KEY=it's"]);
    expect(quoted.stderr.trim()).toBe('The value for CRM_A_API_KEY must be one line without single quotes');
    const sneaky = await quarry(['source', 'add', '--project', dir, '--type', 'local_files', '--name', 'sneaky', '--set', '__proto__.x=1']);
    expect(sneaky.code).toBe(1);
    const after = readFileSync(path.join(dir, '.quarry', 'sources.yml'), 'utf8');
    expect(after).toBe(before);
  });
});
