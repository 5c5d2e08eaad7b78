import { bearerOf, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

/** A published CSV file: its text, and the bearer token it requires (none when undefined). */
export interface CsvDocument {
  text: string;
  token?: string;
}

/** A web server publishing one CSV file at `/exports/orders.csv`, as a data portal or an export link does. */
export async function startCsvHostFake(document: CsvDocument): Promise<FakeApi> {
  return startFakeApi((app) => {
    app.get('/exports/orders.csv', (request, reply) => {
      if (document.token !== undefined && bearerOf(request) !== document.token) {
        return reply.code(401).send({ message: 'Invalid or expired token' });
      }
      return reply.type('text/csv').send(document.text);
    });
  });
}

/** A file of 150 orders behind a bearer token: one request, so its first one fails. */
export const csvHostContract: ContractVendor = {
  type: 'csv_url',
  async start() {
    const document: CsvDocument = { token: 'portal-contract', text: ['id,total', ...Array.from({ length: 150 }, (_, index) => `${String(index + 1)},${String(index * 2)}.50`)].join('\n') };
    const api = await startCsvHostFake(document);
    return {
      api, env: { CSV_URL_CONTRACT_TOKEN: 'portal-contract' }, pagedPath: '/exports/orders.csv', faultAtRequest: 1, table: 'csv_url', key: 'id',
      section: ['csv_url:', `  url: ${api.url}/exports/orders.csv`, '  token_env: CSV_URL_CONTRACT_TOKEN'],
      revoke() {
        document.token = 'portal-rotated';
        return () => { document.token = 'portal-contract'; };
      },
      refusal: (url) => `GET ${url}/exports/orders.csv answered 401 Unauthorized: Invalid or expired token`,
    };
  },
};
