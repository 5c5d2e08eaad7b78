import { cpSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../support/local-postgres.ts';
import { freshPostgresStore } from '../support/postgres-store.ts';
import { runQuarry } from '../support/quarry-process.ts';
import { EMAILS, startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const GAPMINDER = path.resolve(import.meta.dirname, '..', 'fixtures', 'real-world', 'tidyverse', 'readr', 'inst', 'extdata');
const SOURCES_YAML = 'sources:\n  - name: gapminder\n    type: local_files\n    local_files: { directory: data/gapminder, file_pattern: "mini-gapminder-*.csv" }\n';

/** A project that has lived on its embedded platform database: users, a session, an API key, a sync and its logs. */
async function livedInProject(): Promise<{ dir: string; apiKey: string; syncJob: number }> {
  const project = await startQuarry({
    sourcesYaml: SOURCES_YAML, users: ['editor', 'viewer'],
    prepare: (dir) => { cpSync(GAPMINDER, path.join(dir, 'data', 'gapminder'), { recursive: true }); },
  });
  expect(await syncAndWait(project, 'gapminder')).toMatchObject({ type: 'sync_completed', rows: 26 });
  const syncJob = (await project.ctx.store.jobs.latest('sync', 'gapminder'))!.id;
  const created = await project.request('POST', '/api/auth/api-keys', { as: 'editor', body: { name: 'ci' } });
  expect(created.status).toBe(201);
  await project.stop();
  return { dir: project.dir, apiKey: created.json.key as string, syncJob };
}

describe('quarry store migrate --to', () => {
  const place = freshPostgresStore();
  let lived: { dir: string; apiKey: string; syncJob: number };
  let moved: TestQuarry | undefined;

  beforeAll(async () => {
    lived = await livedInProject();
  }, 120_000);

  afterAll(async () => {
    await moved?.close();
    rmSync(lived.dir, { recursive: true, force: true });
    await place.drop();
  });

  it('copies the platform database, counts checked, and the project runs on PostgreSQL as before', async () => {
    const outcome = await runQuarry(['store', 'migrate', '--to', place.url, '--schema', place.schema, '--project', lived.dir]);
    expect(outcome.stderr).toMatch(/^users: 3 row\(s\)$/m);
    expect(outcome.stdout).toContain(`Copied the platform database into ${place.url} (schema ${place.schema})`);
    expect(outcome.status).toBe(0);
    const projectYml = readFileSync(path.join(lived.dir, '.quarry', 'project.yml'), 'utf8');
    expect(projectYml).toContain(place.url);
    expect(projectYml).toContain(place.schema);

    // Users, keys and jobs are read from PostgreSQL now: the copied ones work, and new rows are numbered after them.
    await onPostgres(async (client) => {
      const { rows } = await client.query(`SELECT COUNT(*)::int AS n FROM ${place.schema}.jobs WHERE id = $1`, [lived.syncJob]);
      expect(rows[0].n).toBe(1);
    });
    moved = await startQuarry({ projectDir: lived.dir });
    expect(moved.ctx.store.engine).toBe('postgres');
    const me = await moved.request('GET', '/api/auth/me', { apiKey: lived.apiKey });
    expect(me.status).toBe(200);
    expect(me.json.email).toBe(EMAILS.editor);
    expect(await syncAndWait(moved, 'gapminder')).toMatchObject({ type: 'sync_completed' });
    const history = await moved.ctx.store.jobs.history('sync', 'gapminder', 10);
    expect(history.map((job) => job.id)).toContain(lived.syncJob);
    expect(history[0]!.id).toBeGreaterThan(lived.syncJob);
    const users = await moved.request('GET', '/api/users', { as: 'admin' });
    expect(users.status).toBe(200);
    expect(JSON.stringify(users.json)).toContain(EMAILS.viewer);
    await moved.stop();
    moved = undefined;
  });

  it('refuses a project whose store is in PostgreSQL already, and an occupied schema, changing nothing; a worker needs a shared store', async () => {
    const again = await runQuarry(['store', 'migrate', '--to', place.url, '--schema', place.schema, '--project', lived.dir]);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toContain('names a PostgreSQL store already');

    const other = await startQuarry({});
    await other.stop();
    try {
      const before = readFileSync(path.join(other.dir, '.quarry', 'project.yml'), 'utf8');
      const occupied = await runQuarry(['store', 'migrate', '--to', place.url, '--schema', place.schema, '--project', other.dir]);
      expect(occupied.status).not.toBe(0);
      expect(occupied.stderr).toMatch(/already holds data \(\d+ row\(s\) in \w+\)/);
      expect(readFileSync(path.join(other.dir, '.quarry', 'project.yml'), 'utf8')).toBe(before);

      // A worker has nothing to share its jobs through on the embedded store.
      const worker = await runQuarry(['worker', '--project', other.dir]);
      expect(worker.status).not.toBe(0);
      expect(worker.stderr).toContain('A worker shares its jobs through a PostgreSQL platform store');
    } finally {
      rmSync(other.dir, { recursive: true, force: true });
    }
  });

  it('refuses an address with a password in it', async () => {
    const outcome = await runQuarry(['store', 'migrate', '--to', 'postgres://quarry:secret@127.0.0.1:5432/test', '--project', lived.dir]);
    expect(outcome.status).not.toBe(0);
    expect(outcome.stderr + outcome.stdout).not.toContain('secret');
  });
});
