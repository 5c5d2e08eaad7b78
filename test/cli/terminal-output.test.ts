import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startItemsApi } from '../fakes/items-api.ts';
import { records, type FakeApi } from '../support/fake-api.ts';
import { allowLoopback } from '../support/loopback-network.ts';
import { QUARRY_BIN } from '../support/quarry-process.ts';
import { runInTerminal } from '../support/terminal.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'quarry-terminal-'));
let api: FakeApi;

/** A line pino writes as JSON. */
const JSON_LOG_LINE = /^\{"level":/m;

beforeAll(async () => {
  spawnSync(QUARRY_BIN, ['init', dir, '--admin-email', 'a@example.com', '--admin-password', 'a-good-password', '--non-interactive']);
  await allowLoopback(dir);
  api = await startItemsApi(records(250, (n) => ({ id: n, name: `item ${String(n)}` })), { token: 'terminal-token' });
  const added = spawnSync(QUARRY_BIN, [
    'source', 'add', '--project', dir, '--type', 'rest_api', '--name', 'items', '--non-interactive',
    '--set', `base_url=${api.url}/v1`, '--set', 'auth_token_env=ITEMS_TOKEN', '--secret', 'ITEMS_TOKEN=terminal-token',
    '--set', 'endpoints.0.path=/items', '--set', 'endpoints.0.primary_key=id', '--set', 'endpoints.0.data_selector=data',
    '--set', 'endpoints.0.paginator.type=offset', '--set', 'endpoints.0.paginator.limit=50', '--set', 'endpoints.0.paginator.total_path=total',
  ], { encoding: 'utf8' });
  expect(added.stderr).toBe('');
}, 60_000);

afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the terminal a person sees', () => {
  it('quarry start on a terminal prints short human lines: no JSON, no warning, no line per page or file served', async () => {
    const output = await runInTerminal(QUARRY_BIN, ['start', '--project', dir, '--port', '0', '--no-dashboard'], {
      until: /python worker ready/,
      // What a browser asks for as it opens the sign-in page: none of it is news to the person at the terminal.
      meanwhile: async (sofar) => {
        const url = /Quarry is running at (http:\/\/\S+)/.exec(sofar.replace(/\x1b\[[0-9;]*m/g, ''))?.[1];
        if (url === undefined) throw new Error(`no URL in ${sofar}`);
        for (const asked of ['/login', '/static/public/quarry.css', '/api/status']) await (await fetch(`${url}${asked}`)).arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, 300));
      },
    });
    expect(output).not.toMatch(/GET \/(login|static|api)/);
    expect(output).toMatch(/Quarry is running at http:\/\/127\.0\.0\.1:\d+/);
    expect(output).toMatch(/\[\d\d:\d\d:\d\d\] .*INFO.*\[transform\] python worker ready/);
    expect(output).not.toMatch(JSON_LOG_LINE);
    expect(output).not.toContain('WARN');
    expect(output).not.toContain('reply-from');
  }, 120_000);

  it('quarry start --log-format json writes JSON lines even on a terminal, one per request for a log collector', async () => {
    const output = await runInTerminal(QUARRY_BIN, ['start', '--project', dir, '--port', '0', '--no-dashboard', '--log-format', 'json'], {
      until: /python worker ready/,
      meanwhile: async (sofar) => {
        const url = /"url":"(http:\/\/[^"]+)"/.exec(sofar)?.[1] ?? /Quarry is running at (http:\/\/\S+)/.exec(sofar)?.[1];
        if (url === undefined) throw new Error(`no URL in ${sofar}`);
        await (await fetch(`${url}/login`)).arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, 300));
      },
    });
    expect(output).toMatch(JSON_LOG_LINE);
    expect(output).toMatch(/"url":"\/login","status":200/);
    expect(output).not.toContain('reply-from');
  }, 120_000);

  it('quarry sync on a terminal redraws a progress line in place with the rows read, then the result', async () => {
    const output = await runInTerminal(QUARRY_BIN, ['sync', 'items', '--project', dir]);
    expect(output).toMatch(/\r\x1b\[2K.*Syncing items · [\d,]+ rows · \d+ page\(s\) · \d+ s/);
    expect(output).toContain('Synced items: 250 rows');
  }, 120_000);
});
