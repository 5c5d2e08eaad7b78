import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startObjectStore, type ObjectStore } from '../support/object-store.ts';
import { QUARRY_BIN, spawnQuarry } from '../support/quarry-process.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'quarry-crash-'));
let store: ObjectStore | undefined;

beforeAll(async () => {
  store = await startObjectStore();
}, 120_000);

afterAll(async () => {
  await store?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function writeBigCsv(file: string, rows: number): Promise<void> {
  const stream = createWriteStream(file);
  stream.write('id,name,amount,created\n');
  for (let index = 0; index < rows; index++) {
    if (!stream.write(`${String(index)},customer-${String(index % 1000)},${String(index % 977)}.25,2026-01-${String(1 + (index % 28)).padStart(2, '0')}\n`)) {
      await once(stream, 'drain');
    }
  }
  stream.end();
  await once(stream, 'finish');
}

/** The lake's data in a bucket of the test's S3 server: what project.yml and .env say for it. */
function lakeInBucket(): { config: Record<string, unknown>; env: string } {
  if (store === undefined) throw new Error('the object store did not start');
  return {
    config: {
      warehouse: { data_path: 's3://crash-lake/quarry' },
      object_store: { endpoint: store.endpoint, region: store.region, url_style: 'path', use_ssl: false, access_key_id_env: 'LAKE_KEY_ID', secret_access_key_env: 'LAKE_SECRET' },
    },
    env: `LAKE_KEY_ID=${store.accessKeyId}\nLAKE_SECRET=${store.secretAccessKey}\n`,
  };
}

describe.each([
  { lake: 'on this machine\'s disk', folder: 'disk', where: () => ({ config: {}, env: '' }) },
  { lake: 'in a bucket', folder: 'bucket', where: lakeInBucket },
])('a crash in the middle of a sync, the lake $lake', ({ folder, where }) => {
  it('loses nothing: the previous data stays, the job is interrupted, and the next sync succeeds', async () => {
    const dir = path.join(scratch, folder);
    spawnSync(QUARRY_BIN, ['init', dir, '--admin-email', 'a@example.com', '--admin-password', 'a-good-password', '--non-interactive']);
    const lake = where();
    appendFileSync(path.join(dir, '.env'), lake.env);
    const dataDir = path.join(dir, 'data', 'orders');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path.join(dir, '.quarry', 'sources.yml'), 'sources:\n  - name: orders\n    type: local_files\n    local_files: { directory: data/orders }\n');
    // Syncs start when this test says, not at a start or a change, so each one's outcome is known.
    const projectFile = path.join(dir, '.quarry', 'project.yml');
    writeFileSync(projectFile, stringify({ ...parse(readFileSync(projectFile, 'utf8')) as object, watcher: { auto_sync: false }, ...lake.config }));
    writeFileSync(path.join(dataDir, 'small.csv'), 'id,name,amount,created\n1,a,1.5,2026-01-01\n2,b,2.5,2026-01-02\n');

    let server = await spawnQuarry(dir);
    const login = await fetch(`${server.url}/api/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'a@example.com', password: 'a-good-password' }),
    });
    const cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const api = async (method: string, url: string): Promise<any> => {
      const response = await fetch(`${server.url}${url}`, { method, headers: { cookie, 'x-requested-with': 'XMLHttpRequest' } });
      return response.json();
    };
    const waitForStatus = async (wanted: string[]): Promise<any> => {
      for (;;) {
        const [source] = await api('GET', '/api/sources') as { status: string }[];
        if (source && wanted.includes(source.status)) return source;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    await api('POST', '/api/sources/orders/sync');
    expect((await waitForStatus(['synced'])).row_count).toBe(2);

    await writeBigCsv(path.join(dataDir, 'big.csv'), 3_000_000);
    await api('POST', '/api/sources/orders/sync');
    // Killed once the job runs, not while it waits in the queue: a busy machine can hold it there a while.
    for (;;) {
      const [latest] = await api('GET', '/api/sources/orders/logs?limit=1') as { message: string }[];
      if (latest?.message.startsWith('Sync started') === true) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 400));
    const exited = once(server.child, 'exit');
    server.child.kill('SIGKILL');
    await exited;

    server = await spawnQuarry(dir);
    const loginAgain = await fetch(`${server.url}/api/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'a@example.com', password: 'a-good-password' }),
    });
    const cookieAgain = (loginAgain.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const apiAgain = async (method: string, url: string): Promise<any> => {
      const response = await fetch(`${server.url}${url}`, { method, headers: { cookie: cookieAgain, 'x-requested-with': 'XMLHttpRequest' } });
      return response.json();
    };
    const [afterCrash] = await apiAgain('GET', '/api/sources');
    expect(afterCrash).toEqual(expect.objectContaining({ status: 'failed', row_count: 2 }));
    const details = await apiAgain('GET', '/api/sources/orders/details');
    expect(details.history.map((entry: { status: string }) => entry.status)).toEqual(['interrupted', 'success']);
    const logs = await apiAgain('GET', '/api/sources/orders/logs?limit=1');
    expect(logs[0].message).toMatch(/^The sync job \d+ was interrupted when the process running it \(pid \d+\) stopped; the previous data is intact$/);

    rmSync(path.join(dataDir, 'big.csv'));
    writeFileSync(path.join(dataDir, 'more.csv'), 'id,name,amount,created\n3,c,3.5,2026-01-03\n');
    await apiAgain('POST', '/api/sources/orders/sync');
    for (;;) {
      const [source] = await apiAgain('GET', '/api/sources');
      if (source.status === 'synced') {
        expect(source.row_count).toBe(3);
        break;
      }
      expect(source.status).toBe('syncing');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const stopped = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    expect((await stopped)[0]).toBe(0);
  }, 120_000);
});
