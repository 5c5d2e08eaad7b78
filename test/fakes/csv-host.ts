import { bearerOf, startFakeApi, type FakeApi } from '../support/fake-api.ts';

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
