import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { QUARRY_BIN, spawnQuarry } from '../support/quarry-process.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'quarry-upload-crash-'));

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function signIn(url: string): Promise<string> {
  const login = await fetch(`${url}/api/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'a@example.com', password: 'a-good-password' }),
  });
  return (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
}

describe('a crash in the middle of a CSV upload', () => {
  it('leaves neither a half file nor its temp file, keeps the old file, and the next upload and sync succeed', async () => {
    spawnSync(QUARRY_BIN, ['init', dir, '--admin-email', 'a@example.com', '--admin-password', 'a-good-password', '--non-interactive']);
    const dataDir = path.join(dir, 'data', 'orders');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path.join(dir, '.quarry', 'sources.yml'), 'sources:\n  - name: orders\n    type: local_files\n    local_files: { directory: data/orders, file_pattern: "*.csv" }\n');
    writeFileSync(path.join(dataDir, 'orders.csv'), 'id,amount\n1,10\n');

    let server = await spawnQuarry(dir);
    const cookie = await signIn(server.url);
    // The start syncs the file already there; the crash below comes after that sync, not in it.
    await expect.poll(async () => {
      const [source] = await (await fetch(`${server.url}/api/sources`, { headers: { cookie } })).json() as { status: string }[];
      return source?.status;
    }, { timeout: 30_000, interval: 100 }).toBe('synced');
    // A multipart upload that sends its first megabytes, then stalls: the service dies while receiving it.
    const boundary = 'quarry-crash-boundary';
    const target = new URL('/api/sources/orders/upload-csv', server.url);
    const request = http.request(target, {
      method: 'POST',
      headers: { cookie, 'x-requested-with': 'XMLHttpRequest', 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' },
    });
    request.on('error', () => undefined);
    request.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="orders.csv"\r\nContent-Type: text/csv\r\n\r\nid,amount\n`);
    const rows = Array.from({ length: 200_000 }, (_, index) => `${String(index)},${String(index % 97)}\n`).join('');
    request.write(rows);
    for (let waited = 0; !readdirSync(dataDir).some((name) => name.startsWith('.upload-')) && waited < 100; waited++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(readdirSync(dataDir).some((name) => name.startsWith('.upload-'))).toBe(true);
    const exited = once(server.child, 'exit');
    server.child.kill('SIGKILL');
    await exited;
    request.destroy();

    server = await spawnQuarry(dir);
    try {
      expect(readdirSync(dataDir)).toEqual(['orders.csv']);
      const cookieAgain = await signIn(server.url);
      const headers = { cookie: cookieAgain, 'x-requested-with': 'XMLHttpRequest' };
      const form = new FormData();
      form.append('file', new Blob(['id,amount\n2,20\n3,30\n'], { type: 'text/csv' }), 'more.csv');
      const upload = await fetch(`${server.url}/api/sources/orders/upload-csv`, { method: 'POST', headers, body: form });
      expect(upload.status).toBe(200);
      const sync = await fetch(`${server.url}/api/sources/orders/sync`, { method: 'POST', headers });
      expect(sync.status).toBe(200);
      for (;;) {
        const [source] = await (await fetch(`${server.url}/api/sources`, { headers })).json() as { status: string; row_count: number }[];
        if (source?.status === 'synced') {
          expect(source.row_count).toBe(3);
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      const stopped = once(server.child, 'exit');
      server.child.kill('SIGTERM');
      await stopped;
    }
  }, 90_000);
});
