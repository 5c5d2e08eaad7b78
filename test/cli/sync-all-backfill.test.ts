import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStripeFake, type StripeObject } from '../fakes/stripe.ts';
import { queryLake } from '../support/duckdb-query.ts';
import { records, type FakeApi } from '../support/fake-api.ts';
import { allowLoopback } from '../support/loopback-network.ts';
import { QUARRY_BIN } from '../support/quarry-process.ts';

const KEY = 'sk_test_51Fake0000000000000000000000abcd';
const JANUARY_FIRST_2025 = Date.UTC(2025, 0, 1) / 1000;
/** One customer every 6 hours from 2025-01-01. */
const customer = (n: number, email = `buyer${String(n)}@example.com`): StripeObject => ({
  id: `cus_${String(n).padStart(6, '0')}`, object: 'customer', created: JANUARY_FIRST_2025 + (n - 1) * 6 * 3600, livemode: false, metadata: {}, email,
});
const stripe: Record<string, StripeObject[]> = { customers: records(20, (n) => customer(n)) };

let api: FakeApi;
let dir: string;

/** Runs the CLI without blocking this process, where the fake vendor answers. */
function quarry(args: string[], project: string[] = ['--project', dir]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(QUARRY_BIN, [...args, ...project], { env: { ...process.env, PAYMENTS_API_KEY: KEY }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
  return new Promise((resolve) => { child.on('close', (code) => { resolve({ code, stdout, stderr }); }); });
}

/** The warehouse as a reader sees it. */
function query(sql: string): Promise<Record<string, unknown>[]> {
  return queryLake(dir, sql);
}

beforeAll(async () => {
  api = await startStripeFake(stripe, { secretKey: KEY });
  dir = mkdtempSync(path.join(tmpdir(), 'quarry-cli-sync-'));
  const init = await quarry(['init', dir, '--name', 'Sync', '--admin-email', 'boss@example.com', '--admin-password', 'a-good-password', '--non-interactive'], []);
  expect(init.code).toBe(0);
  await allowLoopback(dir);
  mkdirSync(path.join(dir, 'data'), { recursive: true });
  writeFileSync(path.join(dir, 'data', 'a.csv'), 'id,name\n1,one\n2,two\n');
  writeFileSync(path.join(dir, '.quarry', 'sources.yml'), [
    'sources:',
    `  - {name: stripe, type: payments, payments: {base_url: "${api.url}", endpoints: [customers], start_date: 2025-01-01}}`,
    '  - {name: files, type: local_files, local_files: {directory: data}}',
    '  - {name: paused, type: local_files, enabled: false, local_files: {directory: data}}',
    '',
  ].join('\n'));
});

afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('quarry sync --all and --since/--until', () => {
  it('syncs every enabled source with one line each and says the disabled one was skipped', async () => {
    const result = await quarry(['sync', '--all']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([
      'stripe: Synced stripe: 20 rows',
      'files: Synced files: 2 rows',
      'paused: skipped: The source "paused" is disabled',
      'Synced 2 of 3 source(s)',
    ]);
    expect(await query('SELECT count(*)::INTEGER AS n FROM raw_stripe.customers')).toEqual([{ n: 20 }]);
  });

  it('backfills a window of payments: the window is merged, the rest untouched, nothing duplicated', async () => {
    stripe.customers = records(20, (n) => customer(n, `changed${String(n)}@example.com`));
    const result = await quarry(['sync', 'stripe', '--since', '2025-01-02', '--until', '2025-01-02']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Backfill of 2025-01-02 to 2025-01-02');
    expect(result.stdout.trim().split('\n').at(-1)).toBe('Synced stripe: 4 rows');
    expect(await query("SELECT count(*)::INTEGER AS n, count(DISTINCT id)::INTEGER AS ids, string_agg(id, ',' ORDER BY id) FILTER (WHERE email LIKE 'changed%') AS changed FROM raw_stripe.customers"))
      .toEqual([{ n: 20, ids: 20, changed: 'cus_000005,cus_000006,cus_000007,cus_000008' }]);
  });

  it('refuses a backfill of a type without date ranges with one line naming the types that have them, exit 1', async () => {
    const result = await quarry(['sync', 'files', '--since', '2025-01-01']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('quarry: The source "files" has type local_files, which cannot re-load a window of dates; backfill works for '
      + 'payments, storefront, web_analytics, search_ads, helpdesk_a, recruiting, team_chat, video_analytics, rest_api');
  });

  it('exits 1 when a sync of --all fails, after a line for every source', async () => {
    await api.close();
    const result = await quarry(['sync', '--all']);
    expect(result.code).toBe(1);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^stripe: failed: /);
    expect(lines[1]).toMatch(/^files: Synced files: \d+ rows$/);
    expect(lines.slice(2)).toEqual(['paused: skipped: The source "paused" is disabled']);
    expect(result.stderr.trim()).toBe('quarry: 1 of 3 source(s) failed');
  });
});
