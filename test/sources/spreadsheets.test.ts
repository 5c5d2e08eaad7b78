import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';
import { GoogleOAuth } from '../fakes/google-oauth.ts';
import { startGoogleSheetsFake, type Spreadsheets } from '../fakes/google-sheets.ts';

const SHEET_ID = '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms';
const ORDERS = [
  ['Order ID', 'Customer', 'Unit Price', 'Paid'],
  ...Array.from({ length: 40 }, (_, index) => [index + 1, `customer ${String(index + 1)}`, 10 + index / 2, index % 2 === 0]),
];
const TEAM = [['Name', 'Role', ''], ['Ann', 'owner'], ['Bob', 'analyst', 'ignored?'], [], ['Cy']];

const oauth = new GoogleOAuth();
const spreadsheets: Spreadsheets = new Map();
let api: FakeApi;
let quarry: TestQuarry;

function source(name: string, deduplication: string, ranges = "[Orders, \"'Team Members'!A1:B\"]"): string {
  return [
    `  - name: ${name}`, '    type: spreadsheets', '    spreadsheets:',
    `      spreadsheet_url_or_id: https://docs.google.com/spreadsheets/d/${SHEET_ID}/edit#gid=0`,
    `      range_names: ${ranges}`, `      deduplication: ${deduplication}`, `      base_url: ${api.url}`,
  ].join('\n');
}

function resetSheet(): void {
  spreadsheets.set(SHEET_ID, new Map([['Orders', ORDERS.map((row) => [...row])], ['Team Members', TEAM.map((row) => [...row])]]));
}

beforeAll(async () => {
  oauth.clients.set('sources-client', { secret: 'client-secret', refreshTokens: new Set(['refresh-1']) });
  resetSheet();
  api = await startGoogleSheetsFake(spreadsheets, oauth);
  quarry = await startQuarry({
    env: { QUARRY_GOOGLE_SOURCES_CLIENT_SECRET: 'client-secret' },
    sourcesYaml: ['sources:', source('sheet', 'latest_only'), source('sheet_history', 'scd_type2', '[Orders]'), source('sheet_log', 'append_only', '[Orders]'), ''].join('\n'),
  });
  // What `quarry oauth setup google --for sources` leaves: an access token that has expired, and a refresh token.
  await quarry.ctx.sourceTokens.save('google', {
    accessToken: 'ya29.expired', refreshToken: 'refresh-1', expiresAt: Date.now() - 1000,
    tokenUrl: `${api.url}/token`, clientId: 'sources-client', clientSecretEnv: 'QUARRY_GOOGLE_SOURCES_CLIENT_SECRET',
  });
});

afterAll(async () => {
  await quarry.close();
  await api.close();
});

describe('spreadsheets (Google Sheets API v4)', () => {
  it('refreshes the stored token and loads each range into its own table, the first row naming the columns', async () => {
    expect(await syncAndWait(quarry, 'sheet')).toMatchObject({ type: 'sync_completed', rows: 43 });
    expect(oauth.issued).toBe(1);
    expect(await quarry.query('SELECT count(*) AS n, sum(unit_price) AS total, count(*) FILTER (WHERE paid) AS paid FROM raw_sheet.orders'))
      .toEqual([{ n: 40, total: 790, paid: 20 }]);
    expect(await quarry.query('SELECT order_id, customer FROM raw_sheet.orders WHERE order_id = 7')).toEqual([{ order_id: 7, customer: 'customer 7' }]);
    expect(await quarry.query('SELECT name, role FROM raw_sheet.team_members ORDER BY name'))
      .toEqual([{ name: 'Ann', role: 'owner' }, { name: 'Bob', role: 'analyst' }, { name: 'Cy', role: null }]);
    const values = api.requests.filter((request) => request.path.startsWith('/v4/'));
    expect(values.map((request) => request.path)).toEqual([
      `/v4/spreadsheets/${SHEET_ID}/values/Orders`, `/v4/spreadsheets/${SHEET_ID}/values/'Team%20Members'!A1%3AB`,
    ]);
    expect(values[0]?.query.get('valueRenderOption')).toBe('UNFORMATTED_VALUE');
    expect(values.every((request) => request.headers.authorization === values[0]?.headers.authorization)).toBe(true);
  });

  it('keeps versions under scd_type2, appends under append_only and replaces under latest_only', async () => {
    resetSheet();
    expect(await syncAndWait(quarry, 'sheet_history')).toMatchObject({ type: 'sync_completed', rows: 40 });
    expect(await syncAndWait(quarry, 'sheet_log')).toMatchObject({ type: 'sync_completed', rows: 40 });
    const orders = spreadsheets.get(SHEET_ID)!.get('Orders')!;
    orders[3] = [3, 'customer 3', 99, true]; // order 3 changed
    orders.splice(10, 1); // order 10 deleted
    orders.push([41, 'customer 41', 1, false]); // order 41 added
    quarry.clock.advance(60_000);
    // Two versions closed (order 3 changed, order 10 deleted), two opened (order 3 anew, order 41).
    expect(await syncAndWait(quarry, 'sheet_history')).toMatchObject({ type: 'sync_completed', rows: 4 });
    expect(await syncAndWait(quarry, 'sheet_log')).toMatchObject({ type: 'sync_completed', rows: 40 });
    expect(await syncAndWait(quarry, 'sheet')).toMatchObject({ type: 'sync_completed' });

    const history = await quarry.query(`SELECT count(*) AS versions, count(*) FILTER (WHERE is_current) AS current,
      count(*) FILTER (WHERE valid_to IS NOT NULL) AS closed FROM raw_sheet_history.orders`);
    expect(history).toEqual([{ versions: 42, current: 40, closed: 2 }]);
    const order3 = await quarry.query('SELECT unit_price, is_current, valid_to IS NULL AS open FROM raw_sheet_history.orders WHERE order_id = 3 ORDER BY valid_from');
    expect(order3).toEqual([{ unit_price: 11, is_current: false, open: false }, { unit_price: 99, is_current: true, open: true }]);
    expect(await quarry.query('SELECT is_current FROM raw_sheet_history.orders WHERE order_id = 10')).toEqual([{ is_current: false }]);
    expect(await quarry.query('SELECT count(*) AS n FROM raw_sheet_log.orders')).toEqual([{ n: 80 }]);
    expect(await quarry.query('SELECT count(*) AS n, max(order_id) AS top FROM raw_sheet.orders')).toEqual([{ n: 40, top: 41 }]);
  });
});
