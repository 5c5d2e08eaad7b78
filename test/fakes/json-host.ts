import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerOf, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

/** What the host publishes: a JSON document at `/exports/orders.json`, JSON Lines at `/exports/events.jsonl`. */
export interface JsonFiles {
  document: unknown;
  lines: string;
  /** The bearer token both files require. */
  token: string;
}

/** A web server publishing JSON files behind a bearer token, as an API's export or a data portal does. */
export async function startJsonHostFake(files: JsonFiles): Promise<FakeApi> {
  const publish = (type: string, body: () => string) => (request: FastifyRequest, reply: FastifyReply) => {
    if (bearerOf(request) !== files.token) return reply.code(401).send({ message: 'Invalid or expired token' });
    return reply.type(type).send(body());
  };
  return startFakeApi((app) => {
    app.get('/exports/orders.json', publish('application/json', () => JSON.stringify(files.document)));
    app.get('/exports/events.jsonl', publish('application/jsonl', () => files.lines));
  });
}

/** A document of 150 orders behind a bearer token: one request, so its first one fails. */
export const jsonHostContract: ContractVendor = {
  type: 'json_url',
  async start() {
    const orders = Array.from({ length: 150 }, (_, index) => ({ id: index + 1, total: index * 2 + 0.5 }));
    const files: JsonFiles = { token: 'portal-contract', document: { data: orders }, lines: '' };
    const api = await startJsonHostFake(files);
    return {
      api, env: { JSON_URL_CONTRACT_TOKEN: 'portal-contract' }, pagedPath: '/exports/orders.json', faultAtRequest: 1, table: 'json_url', key: 'id',
      section: ['json_url:', `  url: ${api.url}/exports/orders.json`, '  records_path: data', '  token_env: JSON_URL_CONTRACT_TOKEN'],
      revoke() {
        files.token = 'portal-rotated';
        return () => { files.token = 'portal-contract'; };
      },
      refusal: (url) => `GET ${url}/exports/orders.json answered 401 Unauthorized: Invalid or expired token`,
    };
  },
};
