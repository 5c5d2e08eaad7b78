import { bearerOf, startFakeApi, type FakeApi } from '../support/fake-api.ts';

/** What the host publishes: a JSON document at `/exports/orders.json`, JSON Lines at `/exports/events.jsonl`. */
export interface JsonFiles {
  document: unknown;
  lines: string;
  /** The bearer token both files require. */
  token: string;
}

/** A web server publishing JSON files behind a bearer token, as an API's export or a data portal does. */
export async function startJsonHostFake(files: JsonFiles): Promise<FakeApi> {
  return startFakeApi((app) => {
    app.addHook('onRequest', async (request, reply) => {
      if (bearerOf(request) !== files.token) await reply.code(401).send({ message: 'Invalid or expired token' });
    });
    app.get('/exports/orders.json', (_request, reply) => reply.type('application/json').send(JSON.stringify(files.document)));
    app.get('/exports/events.jsonl', (_request, reply) => reply.type('application/jsonl').send(files.lines));
  });
}
