import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { records, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';
import { startShopifyFake, type ShopifyShop } from '../fakes/shopify.ts';

const at = (day: number, hour = 10) => new Date(Date.UTC(2026, 0, day, hour)).toISOString().replace('.000Z', '+00:00');

const shop: ShopifyShop = {
  accessToken: 'shpat_good',
  resources: new Map<string, Record<string, unknown>[]>([
    ['orders', records(30, (n) => ({
      id: 5_000_000 + n, name: `#${String(1000 + n)}`, email: `buyer${String(n)}@example.com`, created_at: at(n % 28 + 1), updated_at: at(n % 28 + 1, 12),
      closed_at: n % 3 === 0 ? at(n % 28 + 1, 13) : null, currency: 'EUR', total_price: `${String(n)}.50`, financial_status: 'paid',
      customer: { id: 7_000_000 + (n % 12) + 1, email: `c${String(n % 12 + 1)}@example.com` },
      line_items: records(n % 3 + 1, (line) => ({ id: n * 10 + line, title: `Item ${String(line)}`, quantity: line, price: '4.00', sku: `SKU-${String(line)}` })),
      shipping_address: { city: 'Berlin', country_code: 'DE', zip: '10115' },
    }))],
    ['customers', records(12, (n) => ({
      id: 7_000_000 + n, email: `c${String(n)}@example.com`, first_name: 'Cust', last_name: String(n), created_at: at(n), updated_at: at(n, 11), orders_count: n,
      addresses: [{ id: n, city: 'Hamburg', default: true }], default_address: { id: n, city: 'Hamburg' },
    }))],
    ['products', records(5, (n) => ({
      id: 8_000_000 + n, title: `Product ${String(n)}`, status: 'active', created_at: at(n), updated_at: at(n, 9), tags: 'new, sale',
      variants: records(2, (variant) => ({ id: n * 100 + variant, sku: `P${String(n)}-${String(variant)}`, price: '9.99', inventory_quantity: variant * 3 })),
      options: [{ name: 'Size', values: ['S', 'M'] }],
    }))],
  ]),
};

let api: FakeApi;
let quarry: TestQuarry;

beforeAll(async () => {
  api = await startShopifyFake(shop);
  const source = (name: string, tokenEnv: string, extra = '') => [
    `  - name: ${name}`, '    type: storefront', `    generic_config: {shop: acme, base_url: "${api.url}", access_token_env: ${tokenEnv}, page_size: 10${extra}}`,
  ].join('\n');
  quarry = await startQuarry({
    env: { STOREFRONT_ACCESS_TOKEN: 'shpat_good' },
    sourcesYaml: ['sources:', source('shop', 'STOREFRONT_ACCESS_TOKEN'), source('shop_january', 'STOREFRONT_ACCESS_TOKEN', ', start_date: "2026-01-10", end_date: "2026-01-19", resources: [orders]'), ''].join('\n'),
  });
});

afterAll(async () => {
  await quarry.close();
  await api.close();
});

const listRequests = (resource: string) => api.requests.filter((request) => request.path === `/admin/api/2025-07/${resource}.json`);

describe('storefront (Shopify Admin REST API)', () => {
  it('loads orders of any status, customers and products through Link-header pages', async () => {
    expect(await syncAndWait(quarry, 'shop')).toMatchObject({ type: 'sync_completed', rows: 30 + 12 + 5 });
    expect(await quarry.query('SELECT count(*) AS n, count(*) FILTER (WHERE closed_at IS NOT NULL) AS closed FROM raw_shop.orders')).toEqual([{ n: 30, closed: 10 }]);
    expect(await quarry.query('SELECT customer.email AS email, len(line_items) AS lines, line_items[2].sku AS sku, shipping_address.city AS city FROM raw_shop.orders WHERE id = 5000005'))
      .toEqual([{ email: 'c6@example.com', lines: 3, sku: 'SKU-2', city: 'Berlin' }]);
    expect(await quarry.query('SELECT sum(list_sum([v.inventory_quantity for v in variants])) AS stock FROM raw_shop.products')).toEqual([{ stock: 45 }]);
    expect(await quarry.query('SELECT default_address.city AS city FROM raw_shop.customers WHERE id = 7000003')).toEqual([{ city: 'Hamburg' }]);
    const orders = listRequests('orders');
    expect(orders.map((request) => [request.query.get('status'), request.query.get('limit'), request.query.has('page_info')]))
      .toEqual([['any', '10', false], [null, '10', true], [null, '10', true]]);
    expect(orders[0]?.headers['x-shopify-access-token']).toBe('shpat_good');
  });

  it('filters by start_date and end_date on created_at', async () => {
    expect(await syncAndWait(quarry, 'shop_january')).toMatchObject({ type: 'sync_completed' });
    const first = listRequests('orders').at(-1)!;
    expect([first.query.get('created_at_min'), first.query.get('created_at_max')]).toEqual(['2026-01-10T00:00:00Z', '2026-01-19T23:59:59Z']);
    expect(await quarry.query("SELECT count(*) AS n, min(created_at)::DATE::VARCHAR AS first, max(created_at)::DATE::VARCHAR AS last FROM raw_shop_january.orders"))
      .toEqual([{ n: 10, first: '2026-01-10', last: '2026-01-19' }]);
  });

  it('asks a re-sync for what changed since the saved updated_at and merges on id', async () => {
    const orders = shop.resources.get('orders')!;
    Object.assign(orders[4]!, { financial_status: 'refunded', updated_at: at(30) });
    orders.push({ ...orders[0]!, id: 5_000_031, name: '#1031', created_at: at(30), updated_at: at(30, 1) });
    const before = listRequests('orders').length;
    expect(await syncAndWait(quarry, 'shop')).toMatchObject({ type: 'sync_completed' });
    expect(listRequests('orders')[before]?.query.get('updated_at_min')).toBe(at(28, 12));
    expect(await quarry.query("SELECT count(*) AS n, count(DISTINCT id) AS ids, count(*) FILTER (WHERE financial_status = 'refunded') AS refunded FROM raw_shop.orders"))
      .toEqual([{ n: 31, ids: 31, refunded: 1 }]);
  });
});
