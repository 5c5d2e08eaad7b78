import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCsvHostFake, type CsvDocument } from '../fakes/csv-host.ts';
import type { FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { logMessages, syncAndWait } from '../support/sync.ts';

const TOKEN = 'portal-token-1';
const ORDERS = 'id;customer;total;ordered_on\n1;Ada;12.50;2026-01-02\n2;Grace;7.25;2026-01-03\n3;Linus;30.00;2026-01-04\n';

const document: CsvDocument = { text: ORDERS, token: TOKEN };
let api: FakeApi;
let quarry: TestQuarry;

beforeAll(async () => {
  api = await startCsvHostFake(document);
  quarry = await startQuarry({
    env: { ORDERS_PORTAL_TOKEN: TOKEN },
    sourcesYaml: `sources:\n  - name: orders\n    type: csv_url\n    csv_url:\n      url: ${api.url}/exports/orders.csv\n      token_env: ORDERS_PORTAL_TOKEN\n`,
  });
});

afterAll(async () => {
  await quarry.close();
  await api.close();
});

describe('csv_url sources', () => {
  it('downloads the file with the bearer token and loads it with the dialect and types DuckDB detects', async () => {
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 3 });
    expect(await quarry.query('SELECT id, customer, total, ordered_on::VARCHAR AS ordered_on FROM raw_orders.orders ORDER BY id')).toEqual([
      { id: 1, customer: 'Ada', total: 12.5, ordered_on: '2026-01-02' },
      { id: 2, customer: 'Grace', total: 7.25, ordered_on: '2026-01-03' },
      { id: 3, customer: 'Linus', total: 30, ordered_on: '2026-01-04' },
    ]);
    expect(api.requests.at(-1)?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(await logMessages(quarry, 'orders', 'INFO')).toContain(`Downloaded ${api.url}/exports/orders.csv`);
  });

  it('replaces the table with the file as it is now', async () => {
    document.text = 'id;customer;total;ordered_on\n4;Barbara;5.00;2026-02-01\n';
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 1 });
    expect(await quarry.query('SELECT id, customer FROM raw_orders.orders')).toEqual([{ id: 4, customer: 'Barbara' }]);
    document.text = ORDERS;
  });

  it('names the variable when the token is missing and sends no request', async () => {
    const other = await startQuarry({
      sourcesYaml: `sources:\n  - name: orders\n    type: csv_url\n    csv_url:\n      url: ${api.url}/exports/orders.csv\n      token_env: ORDERS_PORTAL_TOKEN\n`,
    });
    try {
      const before = api.requests.length;
      const end = await syncAndWait(other, 'orders');
      expect(end.type === 'sync_failed' ? end.error : '').toMatch(/ORDERS_PORTAL_TOKEN/);
      expect(api.requests.length).toBe(before);
    } finally {
      await other.close();
    }
  });
});
