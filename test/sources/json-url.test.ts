import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSources } from '../../src/sources/config/index.ts';
import { startJsonHostFake, type JsonFiles } from '../fakes/json-host.ts';
import type { FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { logMessages, syncAndWait } from '../support/sync.ts';

const TOKEN = 'portal-token-1';
const ORDERS = [
  { id: 1, customer: 'Ada', total: 12.5, lines: [{ sku: 'A-1', quantity: 2 }] },
  { id: 2, customer: 'Grace', total: 7.25, lines: [] },
];

const files: JsonFiles = {
  token: TOKEN,
  document: { data: { items: ORDERS }, paging: { next: null } },
  lines: '{"id":1,"kind":"signup","at":"2026-01-02T10:00:00Z"}\n{"id":2,"kind":"order","at":"2026-01-03T11:30:00Z"}\n{"id":3,"kind":"refund","at":"2026-01-04T09:15:00Z"}\n',
};
let api: FakeApi;
let quarry: TestQuarry;

function source(name: string, lines: readonly string[]): string {
  return [`  - name: ${name}`, '    type: json_url', '    json_url:', ...lines.map((line) => `      ${line}`), '      token_env: PORTAL_TOKEN'].join('\n');
}

beforeAll(async () => {
  api = await startJsonHostFake(files);
  quarry = await startQuarry({
    env: { PORTAL_TOKEN: TOKEN },
    sourcesYaml: ['sources:',
      source('orders', [`url: ${api.url}/exports/orders.json`, 'records_path: data.items']),
      source('events', [`url: ${api.url}/exports/events.jsonl`, 'format: jsonl']),
      source('misplaced', [`url: ${api.url}/exports/orders.json`]),
      ''].join('\n'),
  });
});

afterAll(async () => {
  await quarry.close();
  await api.close();
});

describe('json_url sources', () => {
  it('loads the list of records found at records_path in a JSON document, sending the bearer token', async () => {
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 2 });
    expect(await quarry.query('SELECT id, customer, total, len(lines) AS line_count FROM raw_orders.orders ORDER BY id')).toEqual([
      { id: 1, customer: 'Ada', total: 12.5, line_count: 1 },
      { id: 2, customer: 'Grace', total: 7.25, line_count: 0 },
    ]);
    expect(api.requests.at(-1)?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(await logMessages(quarry, 'orders', 'INFO')).toContain(`Downloaded ${api.url}/exports/orders.json`);
  });

  it('loads a JSON Lines file one record per line, and replaces the table with the file as it is now', async () => {
    expect(await syncAndWait(quarry, 'events')).toMatchObject({ type: 'sync_completed', rows: 3 });
    expect(await quarry.query('SELECT id, kind FROM raw_events.events ORDER BY id')).toEqual([
      { id: 1, kind: 'signup' }, { id: 2, kind: 'order' }, { id: 3, kind: 'refund' },
    ]);
    const before = files.lines;
    files.lines = '{"id":4,"kind":"signup","at":"2026-02-01T08:00:00Z"}\n';
    try {
      expect(await syncAndWait(quarry, 'events')).toMatchObject({ type: 'sync_completed', rows: 1 });
      expect(await quarry.query('SELECT id, kind FROM raw_events.events')).toEqual([{ id: 4, kind: 'signup' }]);
    } finally {
      files.lines = before;
    }
  });

  it('fails with one line saying where no list of records was found', async () => {
    const end = await syncAndWait(quarry, 'misplaced');
    expect(end.type === 'sync_failed' ? end.error : '').toBe(
      `${api.url}/exports/orders.json holds no list of records at its top level (records_path names where the list is)`,
    );
  });

  it('refuses records_path for a JSON Lines file, saying where', () => {
    const yaml = 'sources:\n  - name: events\n    type: json_url\n    json_url: {url: "https://portal.example.com/events.jsonl", format: jsonl, records_path: data}\n';
    expect(() => parseSources(yaml)).toThrow(expect.objectContaining({
      problems: ['sources.yml: sources[0].json_url.records_path: only for format json: a JSON Lines file is its list of records'],
    }));
  });
});
