import { records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

/** A Stripe object: an id with its type's prefix, its `object` name, and its creation time in unix seconds. */
export interface StripeObject {
  id: string;
  object: string;
  created: number;
  [field: string]: unknown;
}

/** The secret key the fake accepts; a test may change it to roll the key a source holds. */
export interface StripeAccount {
  secretKey: string;
}

const MAX_LIMIT = 100;
const RANGE_OPERATORS = ['gt', 'gte', 'lt', 'lte'] as const;

/**
 * Stripe's API v1 list endpoints: secret keys as bearer (or basic user), lists newest first with
 * `limit`, `has_more` and `starting_after`, and `created[gt|gte|lt|lte]` filters.
 */
export async function startStripeFake(lists: Record<string, StripeObject[]>, account: StripeAccount): Promise<FakeApi> {
  return startFakeApi((app) => {
    app.addHook('preHandler', async (request, reply) => {
      const header = request.headers.authorization ?? '';
      const key = header.startsWith('Bearer ') ? header.slice('Bearer '.length)
        : header.startsWith('Basic ') ? Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8').replace(/:$/, '') : '';
      if (key === account.secretKey) return undefined;
      const message = key === ''
        ? 'You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. \'Authorization: Bearer YOUR_SECRET_KEY\').'
        : `Invalid API Key provided: ${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`;
      return reply.code(401).send({ error: { message, type: 'invalid_request_error' } });
    });

    app.get('/v1/:list', (request, reply) => {
      const name = (request.params as { list: string }).list;
      const objects = lists[name];
      if (objects === undefined) {
        return reply.code(404).send({ error: { message: `Unrecognized request URL (GET: /v1/${name}).`, type: 'invalid_request_error' } });
      }
      const query = request.query as Record<string, string | undefined>;
      const limit = Number(query.limit ?? 10);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
        return reply.code(400).send({ error: { message: 'This value must be between 1 and 100.', param: 'limit', type: 'invalid_request_error' } });
      }
      let listed = [...objects].filter((object) => inCreatedRange(object, query)).sort((a, b) => b.created - a.created || b.id.localeCompare(a.id));
      if (name === 'subscriptions' && query.status !== 'all') listed = listed.filter((object) => object.status !== 'canceled');
      if (query.starting_after !== undefined) {
        const index = listed.findIndex((object) => object.id === query.starting_after);
        if (index < 0) {
          return reply.code(400).send({ error: { message: `No such object: '${query.starting_after}'`, param: 'starting_after', type: 'invalid_request_error' } });
        }
        listed = listed.slice(index + 1);
      }
      return { object: 'list', data: listed.slice(0, limit), has_more: listed.length > limit, url: `/v1/${name}` };
    });
  });
}

function inCreatedRange(object: StripeObject, query: Record<string, string | undefined>): boolean {
  return RANGE_OPERATORS.every((operator) => {
    const bound = query[`created[${operator}]`];
    if (bound === undefined) return true;
    const value = Number(bound);
    switch (operator) {
      case 'gt': return object.created > value;
      case 'gte': return object.created >= value;
      case 'lt': return object.created < value;
      case 'lte': return object.created <= value;
    }
  });
}

/** An account with 150 customers (two pages). */
export const stripeContract: ContractVendor = {
  type: 'payments',
  async start() {
    const key = 'sk_test_51Contract00000000000000000000abcd';
    const account: StripeAccount = { secretKey: key };
    const start = Date.UTC(2025, 0, 1) / 1000;
    const customers = records(150, (n): StripeObject => ({ id: `cus_${String(n).padStart(6, '0')}`, object: 'customer', created: start + n * 3600, email: `buyer${String(n)}@example.com` }));
    const api = await startStripeFake({ customers }, account);
    return {
      api, env: { PAYMENTS_API_KEY: key }, pagedPath: '/v1/customers', table: 'customers', key: 'id',
      section: ['payments:', '  endpoints: [customers]', '  start_date: 2025-01-01', `  base_url: ${api.url}`],
      revoke() {
        account.secretKey = 'sk_test_51Rolled000000000000000000000wxyz';
        return () => { account.secretKey = key; };
      },
      refusal: (url) => new RegExp(`^GET ${url}/v1/customers answered 401 Unauthorized: Invalid API Key provided: sk_test_\\*+abcd$`),
    };
  },
};
