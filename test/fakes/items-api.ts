import { bearerOf, records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

/** The bearer token the fake accepts; a test may change it to revoke the one a source holds. */
export interface ItemsAccount {
  token: string;
}

/** A JSON API of the kind `rest_api` sources describe: `/v1/items` in `offset`/`limit` pages with a `total`, behind a bearer token. */
export async function startItemsApi(items: readonly Record<string, unknown>[], account: ItemsAccount): Promise<FakeApi> {
  return startFakeApi((app) => {
    app.get('/v1/items', (request, reply) => {
      if (bearerOf(request) !== account.token) return reply.code(401).send({ message: 'bad token' });
      const query = request.query as Record<string, string | undefined>;
      const offset = Number(query.offset ?? 0);
      return { total: items.length, data: items.slice(offset, offset + Number(query.limit ?? 100)) };
    });
  });
}

/** 250 items read 50 a page, as a `rest_api` source declares them. */
export const itemsApiContract: ContractVendor = {
  type: 'rest_api',
  async start() {
    const account: ItemsAccount = { token: 'items-contract-token' };
    const api = await startItemsApi(records(250, (n) => ({ id: n, name: `item ${String(n)}` })), account);
    return {
      api, env: { REST_API_CONTRACT_TOKEN: account.token }, pagedPath: '/v1/items', table: 'items', key: 'id',
      section: [
        'rest_api:', `  base_url: ${api.url}/v1`, '  auth_type: bearer', '  auth_token_env: REST_API_CONTRACT_TOKEN', '  endpoints:',
        '    - path: /items', '      paginator: { type: offset, limit: 50, total_path: total }', '      data_selector: data', '      primary_key: id',
      ],
      revoke() {
        account.token = 'items-rotated-token';
        return () => { account.token = 'items-contract-token'; };
      },
      refusal: (url) => `GET ${url}/v1/items answered 401 Unauthorized: bad token`,
    };
  },
};
