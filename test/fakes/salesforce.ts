import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { jwtVerify } from 'jose';
import { bearerOf, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

/** A connected app with a certificate, and the users pre-authorized for it. */
export interface ConnectedApp {
  readonly clientId: string;
  readonly publicKey: KeyObject;
  readonly users: Set<string>;
  /** The JSON a CRM_B_CREDENTIALS variable holds, for `username`, pointing at the fake's login URL. */
  credentials(loginUrl: string, username: string): string;
}

export function makeConnectedApp(clientId = '3MVG9fakeConsumerKey'): ConnectedApp {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  // PKCS #1, as `openssl genrsa` writes the keys people upload certificates for.
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' });
  return {
    clientId, publicKey, users: new Set(),
    credentials: (loginUrl, username) => JSON.stringify({ client_id: clientId, username, private_key: pem, login_url: loginUrl }),
  };
}

/** An sObject type: its fields (as describe lists them) and its records (with `SystemModstamp`). */
export interface SObjectData {
  fields: { name: string; type: string }[];
  records: Record<string, unknown>[];
}

/**
 * Salesforce: the OAuth 2.0 JWT bearer token endpoint (signature, issuer, audience, subject checked),
 * `sobjects/{name}/describe`, and SOQL through `query`/`queryAll` with `nextRecordsUrl` batches.
 */
export async function startSalesforceFake(app: ConnectedApp, objects: Map<string, SObjectData>, batchSize = 2000): Promise<FakeApi> {
  const tokens = new Set<string>();
  const cursors = new Map<string, Record<string, unknown>[]>();
  const api: FakeApi = await startFakeApi((server) => {
    server.post('/services/oauth2/token', async (request, reply) => {
      const form = request.body as Record<string, string | undefined>;
      const invalid = (description: string) => reply.code(400).send({ error: 'invalid_grant', error_description: description });
      if (form.grant_type !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
        return reply.code(400).send({ error: 'unsupported_grant_type', error_description: 'grant type not supported' });
      }
      const verified = await jwtVerify(form.assertion ?? '', app.publicKey, { algorithms: ['RS256'], audience: api.url, issuer: app.clientId })
        .catch(() => undefined);
      if (verified === undefined) return await invalid('invalid assertion');
      if ((verified.payload.exp ?? 0) - Math.floor(Date.now() / 1000) > 300) return await invalid('expiration date too far in the future');
      if (!app.users.has(verified.payload.sub ?? '')) return await invalid("user hasn't approved this consumer");
      const token = `00Dfake!${randomUUID()}`;
      tokens.add(token);
      return { access_token: token, scope: 'api', instance_url: api.url, id: `${api.url}/id/00Dfake/005fake`, token_type: 'Bearer', issued_at: String(Date.now()) };
    });

    server.addHook('preHandler', async (request, reply) => {
      if (!request.url.startsWith('/services/data/') || tokens.has(bearerOf(request) ?? '')) return undefined;
      return reply.code(401).send([{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }]);
    });

    server.get('/services/data/:version/sobjects/:name/describe', (request, reply) => {
      const { name } = request.params as { name: string };
      const object = objects.get(name);
      if (object === undefined) return reply.code(404).send([{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }]);
      return { name, label: name, queryable: true, fields: object.fields.map((field) => ({ ...field, label: field.name, nillable: true })) };
    });

    const batch = (version: string, all: Record<string, unknown>[], from: number, locator = `01gFAKE${randomUUID().slice(0, 8)}`) => {
      const records = all.slice(from, from + batchSize);
      const done = from + batchSize >= all.length;
      if (!done) cursors.set(locator, all);
      return { totalSize: all.length, done, ...(done ? {} : { nextRecordsUrl: `/services/data/${version}/query/${locator}-${String(from + batchSize)}` }), records };
    };

    server.get('/services/data/:version/:endpoint', (request, reply) => {
      const { version, endpoint } = request.params as { version: string; endpoint: string };
      if (endpoint !== 'query' && endpoint !== 'queryAll') return reply.code(404).send([{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }]);
      const q = (request.query as { q?: string }).q ?? '';
      const parsed = /^SELECT (.+) FROM (\w+)(?: WHERE SystemModstamp > (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z))? ORDER BY SystemModstamp ASC$/.exec(q);
      const object = parsed === null ? undefined : objects.get(parsed[2] ?? '');
      if (parsed === null || object === undefined) return reply.code(400).send([{ message: `unexpected token: ${q.slice(0, 40)}`, errorCode: 'MALFORMED_QUERY' }]);
      const fields = (parsed[1] ?? '').split(', ');
      const unknown = fields.find((field) => !object.fields.some((candidate) => candidate.name === field));
      if (unknown !== undefined) return reply.code(400).send([{ message: `No such column '${unknown}' on entity '${parsed[2] ?? ''}'.`, errorCode: 'INVALID_FIELD' }]);
      const since = parsed[3] === undefined ? undefined : Date.parse(parsed[3]);
      const rows = object.records
        .filter((record) => endpoint === 'queryAll' || record.IsDeleted !== true)
        .filter((record) => since === undefined || Date.parse(String(record.SystemModstamp)) > since)
        .sort((a, b) => Date.parse(String(a.SystemModstamp)) - Date.parse(String(b.SystemModstamp)))
        .map((record) => ({
          attributes: { type: parsed[2], url: `/services/data/${version}/sobjects/${parsed[2] ?? ''}/${String(record.Id)}` },
          ...Object.fromEntries(fields.map((field) => [field, record[field] ?? null])),
        }));
      return batch(version, rows, 0);
    });

    server.get('/services/data/:version/query/:locator', (request, reply) => {
      const { version, locator } = request.params as { version: string; locator: string };
      const [id = '', offset] = locator.split('-');
      const all = cursors.get(id);
      if (all === undefined || offset === undefined) return reply.code(400).send([{ message: 'invalid query locator', errorCode: 'INVALID_QUERY_LOCATOR' }]);
      return batch(version, all, Number(offset), id);
    });
  });
  return api;
}

/** An org of 25 accounts, queried in batches of 10, signed into through a connected app the user approved. */
export const salesforceContract: ContractVendor = {
  type: 'crm_b',
  async start() {
    const connectedApp = makeConnectedApp();
    connectedApp.users.add('integration@acme.example');
    const stamp = (minute: number): string => new Date(Date.UTC(2026, 0, 5, 10, minute)).toISOString().replace('Z', '+0000');
    const accounts: SObjectData = {
      fields: [{ name: 'Id', type: 'id' }, { name: 'Name', type: 'string' }, { name: 'SystemModstamp', type: 'datetime' }],
      records: Array.from({ length: 25 }, (_, index) => ({ Id: `001${String(index + 1).padStart(12, '0')}`, Name: `Account ${String(index + 1)}`, SystemModstamp: stamp(index + 1) })),
    };
    const api = await startSalesforceFake(connectedApp, new Map([['Account', accounts]]), 10);
    return {
      api, env: { CRM_B_CREDENTIALS: connectedApp.credentials(api.url, 'integration@acme.example') },
      pagedPath: '/services/data/v62.0/query/', table: 'account', key: 'Id',
      section: ['crm_b:', '  credentials_env: CRM_B_CREDENTIALS', '  resources: [account]'],
      revoke() {
        connectedApp.users.delete('integration@acme.example');
        return () => { connectedApp.users.add('integration@acme.example'); };
      },
      refusal: (url) => `POST ${url}/services/oauth2/token answered 400 Bad Request: user hasn't approved this consumer`,
    };
  },
};
