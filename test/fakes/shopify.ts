import type { FastifyReply } from 'fastify';
import { startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

export interface ShopifyShop {
  accessToken: string;
  /** Resource (`orders`, `customers`, `products`...) → records with `id`, `created_at`, `updated_at`. */
  resources: Map<string, Record<string, unknown>[]>;
}

interface PageInfo { resource: string; filters: Record<string, string>; after: number }

const FILTERS = ['status', 'created_at_min', 'created_at_max', 'updated_at_min', 'updated_at_max', 'since_id'];

function matches(record: Record<string, unknown>, filters: Record<string, string>): boolean {
  const at = (field: string) => Date.parse(String(record[field]));
  if (filters.created_at_min !== undefined && at('created_at') < Date.parse(filters.created_at_min)) return false;
  if (filters.created_at_max !== undefined && at('created_at') > Date.parse(filters.created_at_max)) return false;
  if (filters.updated_at_min !== undefined && at('updated_at') < Date.parse(filters.updated_at_min)) return false;
  if (filters.updated_at_max !== undefined && at('updated_at') > Date.parse(filters.updated_at_max)) return false;
  // Orders default to status=open; the others have no status filter.
  if (filters.status !== 'any' && record.closed_at !== undefined && record.closed_at !== null) return false;
  return true;
}

/**
 * Shopify's Admin REST API: `X-Shopify-Access-Token`, `{resource}.json` lists ordered by id with `limit`
 * (at most 250) and cursor pages in the `Link` header (`page_info`, which takes no other filter),
 * created/updated time filters, and Shopify's `{"errors": ...}` bodies.
 */
export async function startShopifyFake(shop: ShopifyShop): Promise<FakeApi> {
  const api: FakeApi = await startFakeApi((app) => {
    app.addHook('preHandler', async (request, reply) => {
      if (request.headers['x-shopify-access-token'] === shop.accessToken) return undefined;
      return reply.code(401).send({ errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
    });
    app.get('/admin/api/:version/:file', (request, reply: FastifyReply) => {
      const { version, file } = request.params as { version: string; file: string };
      const resource = file.replace(/\.json$/, '');
      const all = shop.resources.get(resource);
      if (!/^\d{4}-\d{2}$/.test(version) || !file.endsWith('.json') || all === undefined) return reply.code(404).send({ errors: 'Not Found' });
      const query = request.query as Record<string, string | undefined>;
      const limit = Number(query.limit ?? 50);
      if (!Number.isInteger(limit) || limit < 1 || limit > 250) return reply.code(400).send({ errors: { limit: ['must be between 1 and 250'] } });
      let page: PageInfo;
      if (query.page_info !== undefined) {
        const extra = Object.keys(query).filter((name) => !['page_info', 'limit', 'fields'].includes(name));
        if (extra.length > 0) return reply.code(400).send({ errors: { page_info: [`cannot be combined with ${extra.join(', ')}`] } });
        page = JSON.parse(Buffer.from(query.page_info, 'base64url').toString('utf8')) as PageInfo;
      } else {
        const filters = Object.fromEntries(FILTERS.flatMap((name) => (query[name] === undefined ? [] : [[name, query[name]]]))) as Record<string, string>;
        page = { resource, filters, after: 0 };
      }
      const listed = all.filter((record) => matches(record, page.filters)).sort((a, b) => Number(a.id) - Number(b.id));
      const records = listed.filter((record) => Number(record.id) > page.after).slice(0, limit);
      const last = records.at(-1);
      if (last !== undefined && listed.some((record) => Number(record.id) > Number(last.id))) {
        const next: PageInfo = { ...page, after: Number(last.id) };
        const url = `${api.url}/admin/api/${version}/${file}?limit=${String(limit)}&page_info=${Buffer.from(JSON.stringify(next)).toString('base64url')}`;
        void reply.header('link', `<${url}>; rel="next"`);
      }
      return { [resource]: records };
    });
  });
  return api;
}

/** A shop of 30 orders, read 10 a page. */
export const shopifyContract: ContractVendor = {
  type: 'storefront',
  async start() {
    const at = (day: number): string => new Date(Date.UTC(2026, 0, day, 10)).toISOString().replace('.000Z', '+00:00');
    const shop: ShopifyShop = {
      accessToken: 'shpat_contract',
      resources: new Map([['orders', Array.from({ length: 30 }, (_, index) => index + 1).map((n) => ({ id: 5_000_000 + n, name: `#${String(1000 + n)}`, created_at: at(n % 28 + 1), updated_at: at(n % 28 + 1), total_price: `${String(n)}.50` }))]]),
    };
    const api = await startShopifyFake(shop);
    return {
      api, env: { STOREFRONT_ACCESS_TOKEN: 'shpat_contract' }, pagedPath: '/admin/api/2025-07/orders.json', table: 'orders', key: 'id',
      section: ['generic_config:', '  shop: acme', `  base_url: "${api.url}"`, '  page_size: 10', '  resources: [orders]'],
      revoke() {
        shop.accessToken = 'shpat_rotated';
        return () => { shop.accessToken = 'shpat_contract'; };
      },
      refusal: (url) => `GET ${url}/admin/api/2025-07/orders.json answered 401 Unauthorized: [API] Invalid API key or access token (unrecognized login or wrong password)`,
    };
  },
};
