import { bearerOf, records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

/** An entry as Strapi v4 stores it; relation fields hold `{data: ...}` and are sent only when populated. */
export interface StrapiEntry {
  id: number;
  attributes: Record<string, unknown>;
}

/** The API token the fake accepts; a test may change it to revoke the one a source holds. */
export interface StrapiAccount {
  token: string;
}

const DEFAULT_PAGE_SIZE = 25;
const MAX_PAGE_SIZE = 100;

/**
 * Strapi v4's REST API: API tokens as bearer, `/api/{plural id}` collections answered as
 * `{data: [{id, attributes}], meta: {pagination}}` with `pagination[page]`/`pagination[pageSize]`,
 * `sort`, and relations only when `populate` asks for them.
 */
export async function startStrapiFake(collections: Record<string, StrapiEntry[]>, account: StrapiAccount): Promise<FakeApi> {
  return startFakeApi((app) => {
    app.addHook('preHandler', async (request, reply) => {
      if (bearerOf(request) === account.token) return undefined;
      return reply.code(401).send(strapiError(401, 'UnauthorizedError', 'Missing or invalid credentials'));
    });

    app.get('/api/:collection', (request, reply) => {
      const entries = collections[(request.params as { collection: string }).collection];
      if (entries === undefined) return reply.code(404).send(strapiError(404, 'NotFoundError', 'Not Found'));
      const query = request.query as Record<string, string | undefined>;
      const page = Number(query['pagination[page]'] ?? 1);
      const pageSize = Math.min(Number(query['pagination[pageSize]'] ?? DEFAULT_PAGE_SIZE), MAX_PAGE_SIZE);
      if (!Number.isInteger(page) || page < 1 || !Number.isInteger(pageSize) || pageSize < 1) {
        return reply.code(400).send(strapiError(400, 'ValidationError', 'Invalid pagination parameters'));
      }
      const sorted = query.sort === 'id:desc' ? [...entries].sort((a, b) => b.id - a.id) : [...entries].sort((a, b) => a.id - b.id);
      const populated = query.populate === '*';
      const data = sorted.slice((page - 1) * pageSize, page * pageSize).map((entry) => ({
        id: entry.id,
        attributes: populated ? entry.attributes : Object.fromEntries(Object.entries(entry.attributes).filter(([, value]) => !isRelation(value))),
      }));
      return { data, meta: { pagination: { page, pageSize, pageCount: Math.ceil(entries.length / pageSize), total: entries.length } } };
    });
  });
}

function isRelation(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).includes('data');
}

function strapiError(status: number, name: string, message: string): Record<string, unknown> {
  return { data: null, error: { status, name, message, details: {} } };
}

/** A collection of 230 articles (several pages). */
export const strapiContract: ContractVendor = {
  type: 'headless_cms',
  async start() {
    const account: StrapiAccount = { token: 'strapi-contract-token' };
    const at = (n: number): string => new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString();
    const articles = records(230, (n): StrapiEntry => ({ id: n, attributes: { title: `Article ${String(n)}`, createdAt: at(n), updatedAt: at(n), publishedAt: at(n) } }));
    const api = await startStrapiFake({ articles }, account);
    return {
      api, env: { HEADLESS_CMS_API_TOKEN: account.token }, pagedPath: '/api/articles', table: 'articles', key: 'id',
      section: ['generic_config:', `  base_url: ${api.url}`, '  collections: [articles]'],
      revoke() {
        account.token = 'revoked';
        return () => { account.token = 'strapi-contract-token'; };
      },
      refusal: (url) => `GET ${url}/api/articles answered 401 Unauthorized: Missing or invalid credentials`,
    };
  },
};
