import { startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';
import { GoogleOAuth } from './google-oauth.ts';

const SCOPE = 'https://www.googleapis.com/auth/adwords';

/** A row of a resource in the API's JSON shape: entities as camelCase objects, `segments.date`, `metrics` (int64 as text). */
export type AdsRow = Record<string, Record<string, unknown>> & { segments: { date: string } };

export interface AdsAccount {
  developerToken: string;
  /** Customer id (digits) → resource (`campaign`, `keyword_view`...) → rows. */
  customers: Map<string, Map<string, AdsRow[]>>;
  /** Customers reachable only through this manager account (`login-customer-id`). */
  managedBy?: string;
}

const camel = (snake: string) => snake.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

function pick(row: AdsRow, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const path = field.split('.').map(camel);
    let source: unknown = row;
    let target = out;
    path.forEach((segment, index) => {
      source = (source as Record<string, unknown> | undefined)?.[segment];
      if (index === path.length - 1) {
        if (source !== undefined) target[segment] = source;
      } else {
        target[segment] ??= {};
        target = target[segment] as Record<string, unknown>;
      }
    });
  }
  for (const [entity, value] of Object.entries(out)) {
    const resourceName = (row[entity] as { resourceName?: unknown } | undefined)?.resourceName;
    if (entity !== 'metrics' && entity !== 'segments' && resourceName !== undefined) (value as Record<string, unknown>).resourceName = resourceName;
  }
  return out;
}

function failure(code: number, status: string, message: string, errorCode: Record<string, string>, detail: string) {
  return { error: { code, message, status, details: [{
    '@type': 'type.googleapis.com/google.ads.googleads.v21.errors.GoogleAdsFailure',
    errors: [{ errorCode, message: detail }], requestId: 'fake-request',
  }] } };
}

/**
 * Google Ads API `customers/{id}/googleAds:search`: GAQL `SELECT ... FROM <resource> WHERE segments.date
 * BETWEEN 'a' AND 'b'`, fixed-size pages linked by `nextPageToken`, developer token and OAuth checked.
 */
export async function startGoogleAdsFake(account: AdsAccount, oauth: GoogleOAuth, pageSize = 10_000): Promise<FakeApi> {
  const api: FakeApi = await startFakeApi((app) => {
    oauth.register(app, () => `${api.url}/token`);
    app.post('/:version/customers/:customer/:method', (request, reply) => {
      const { version, customer, method } = request.params as { version: string; customer: string; method: string };
      if (!/^v\d+$/.test(version) || method !== 'googleAds:search') return reply.code(404).send({ error: { code: 404, message: 'Method not found.', status: 'NOT_FOUND' } });
      const rejected = oauth.reject(request, reply, SCOPE);
      if (rejected !== undefined) return rejected;
      if (request.headers['developer-token'] !== account.developerToken) {
        return reply.code(401).send(failure(401, 'UNAUTHENTICATED', 'Request is missing required authentication credential.',
          { authenticationError: 'DEVELOPER_TOKEN_INVALID' }, 'The developer token is not valid.'));
      }
      const resources = account.customers.get(customer);
      if (resources === undefined || (account.managedBy !== undefined && request.headers['login-customer-id'] !== account.managedBy)) {
        return reply.code(403).send(failure(403, 'PERMISSION_DENIED', 'The caller does not have permission',
          { authorizationError: 'USER_PERMISSION_DENIED' }, "User doesn't have permission to access customer."));
      }
      const body = request.body as { query?: string; pageToken?: string; pageSize?: number };
      if (body.pageSize !== undefined) {
        return reply.code(400).send(failure(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.',
          { requestError: 'PAGE_SIZE_NOT_SUPPORTED' }, 'Setting the page size is not supported.'));
      }
      const query = /^\s*SELECT\s+(.+?)\s+FROM\s+([a-z_]+)(?:\s+WHERE\s+segments\.date\s+BETWEEN\s+'(\d{4}-\d{2}-\d{2})'\s+AND\s+'(\d{4}-\d{2}-\d{2})')?\s*$/is.exec(body.query ?? '');
      const rows = query === null ? undefined : resources.get(query[2] ?? '');
      if (query === null || rows === undefined) {
        return reply.code(400).send(failure(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.',
          { queryError: 'UNRECOGNIZED_FIELD' }, `Error in query: ${body.query ?? ''}`));
      }
      const fields = (query[1] ?? '').split(',').map((field) => field.trim());
      const [from, to] = [query[3] ?? '0000-00-00', query[4] ?? '9999-12-31'];
      const matching = rows.filter((row) => row.segments.date >= from && row.segments.date <= to);
      const token = (offset: number) => Buffer.from(JSON.stringify({ offset, query: body.query })).toString('base64url');
      let offset = 0;
      if (body.pageToken !== undefined) {
        const decoded = JSON.parse(Buffer.from(body.pageToken, 'base64url').toString('utf8')) as { offset: number; query: string };
        if (decoded.query !== body.query) {
          return reply.code(400).send(failure(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.',
            { requestError: 'INVALID_PAGE_TOKEN' }, 'Page token is invalid.'));
        }
        offset = decoded.offset;
      }
      const page = matching.slice(offset, offset + pageSize).map((row) => pick(row, fields));
      const more = offset + pageSize < matching.length;
      return {
        ...(page.length === 0 ? {} : { results: page }),
        fieldMask: fields.map((field) => field.split('.').map(camel).join('.')).join(','),
        ...(more ? { nextPageToken: token(offset + pageSize) } : {}),
        queryResourceConsumption: String(page.length),
      };
    });
  });
  return api;
}

/** A customer with three campaigns a day for the last four days, read 5 rows a page through a manager account. */
export const googleAdsContract: ContractVendor = {
  type: 'search_ads',
  async start() {
    const oauth = new GoogleOAuth();
    oauth.clients.set('gcloud-client', { secret: 'gcloud-secret', refreshTokens: new Set(['user-refresh']) });
    const day = (daysAgo: number): string => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    const campaigns = [4, 3, 2, 1].flatMap((daysAgo) => [1, 2, 3].map((id): AdsRow => ({
      campaign: { resourceName: `customers/1234567890/campaigns/${String(id)}`, id: String(id), name: `Campaign ${String(id)}`, status: 'ENABLED' },
      segments: { date: day(daysAgo) }, metrics: { impressions: String(100 * id), clicks: String(id), costMicros: String(id * 250_000) },
    })));
    const account: AdsAccount = { developerToken: 'dev-token-contract', managedBy: '9876543210', customers: new Map([['1234567890', new Map([['campaign', campaigns]])]]) };
    const api = await startGoogleAdsFake(account, oauth, 5);
    const credentials = JSON.stringify({ type: 'authorized_user', client_id: 'gcloud-client', client_secret: 'gcloud-secret', refresh_token: 'user-refresh', token_uri: `${api.url}/token` });
    return {
      api, env: { SEARCH_ADS_CREDENTIALS: credentials, SEARCH_ADS_DEVELOPER_TOKEN: 'dev-token-contract' },
      pagedPath: '/v21/customers/1234567890/googleAds:search', table: 'campaign_stats', key: '(campaign.id, segments.date)',
      section: ['search_ads:', '  property_id: 123-456-7890', '  login_customer_id: "9876543210"', '  credentials_env: SEARCH_ADS_CREDENTIALS', '  resources: [campaign_stats]', `  base_url: ${api.url}`],
      revoke() {
        // The user removed Quarry's access in their Google account: the refresh token and the access tokens it bought
        // are no longer known (a refused developer token is search-ads.test.ts's).
        oauth.clients.get('gcloud-client')?.refreshTokens.delete('user-refresh');
        oauth.tokens.clear();
        return () => { oauth.clients.get('gcloud-client')?.refreshTokens.add('user-refresh'); };
      },
      refusal: (url) => `POST ${url}/token answered 400 Bad Request: Token has been expired or revoked.`,
    };
  },
};
