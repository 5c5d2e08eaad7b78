import { startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';
import { GoogleOAuth, makeServiceAccount } from './google-oauth.ts';

const SCOPE = 'https://www.googleapis.com/auth/analytics.readonly';
const DAY_MS = 86_400_000;

/** One day's figures for one combination of dimension values; `date` as the API writes it, YYYYMMDD. */
export type AnalyticsFact = Record<string, string | number> & { date: string };

const METRIC_TYPES: Record<string, string> = {
  sessions: 'TYPE_INTEGER', engagedSessions: 'TYPE_INTEGER', totalUsers: 'TYPE_INTEGER', newUsers: 'TYPE_INTEGER',
  screenPageViews: 'TYPE_INTEGER', keyEvents: 'TYPE_INTEGER', eventCount: 'TYPE_INTEGER', userEngagementDuration: 'TYPE_SECONDS',
};
const DIMENSIONS = new Set(['date', 'sessionSource', 'sessionMedium', 'sessionCampaignName', 'hostName', 'pagePath', 'pageTitle',
  'eventName', 'deviceCategory', 'operatingSystem', 'browser', 'country', 'region', 'city']);

interface RunReportBody {
  dateRanges?: { startDate: string; endDate: string }[];
  dimensions?: { name: string }[];
  metrics?: { name: string }[];
  offset?: number | string;
  limit?: number | string;
}

function resolveDate(text: string, today: Date): string {
  const daysAgo = text === 'today' ? 0 : text === 'yesterday' ? 1 : /^(\d+)daysAgo$/.exec(text)?.[1];
  const date = daysAgo === undefined ? text : new Date(today.getTime() - Number(daysAgo) * DAY_MS).toISOString().slice(0, 10);
  return date.replaceAll('-', '');
}

/**
 * Google Analytics 4 Data API `properties/{id}:runReport` over facts: rows grouped by the requested
 * dimensions with summed metrics, within the date range, paged by `offset`/`limit` over `rowCount`.
 */
export async function startGoogleAnalyticsFake(properties: Map<string, AnalyticsFact[]>, oauth: GoogleOAuth, today = new Date()): Promise<FakeApi> {
  const api: FakeApi = await startFakeApi((app) => {
    oauth.register(app, () => `${api.url}/token`);
    // `properties/{id}:runReport`: a custom method after a colon, as Google's APIs name them.
    app.post('/v1beta/properties/:method', (request, reply) => {
      const [property = '', method] = (request.params as { method: string }).method.split(':');
      if (method !== 'runReport') return reply.code(404).send({ error: { code: 404, message: 'Method not found.', status: 'NOT_FOUND' } });
      const rejected = oauth.reject(request, reply, SCOPE);
      if (rejected !== undefined) return rejected;
      const facts = properties.get(property);
      if (facts === undefined) {
        return reply.code(403).send({ error: { code: 403, message: 'User does not have sufficient permissions for this property.', status: 'PERMISSION_DENIED' } });
      }
      const body = request.body as RunReportBody;
      const invalid = (message: string) => reply.code(400).send({ error: { code: 400, message, status: 'INVALID_ARGUMENT' } });
      const range = body.dateRanges?.[0];
      if (range === undefined) return invalid('dateRanges is required.');
      const dimensions = (body.dimensions ?? []).map((dimension) => dimension.name);
      const metrics = (body.metrics ?? []).map((metric) => metric.name);
      const unknown = [...dimensions.filter((name) => !DIMENSIONS.has(name)), ...metrics.filter((name) => !(name in METRIC_TYPES))];
      if (unknown.length > 0) return invalid(`Field ${unknown[0] ?? ''} is not a valid dimension or metric.`);
      const [from, to] = [resolveDate(range.startDate, today), resolveDate(range.endDate, today)];
      const groups = new Map<string, { dimensionValues: { value: string }[]; sums: number[] }>();
      for (const fact of facts.filter((candidate) => candidate.date >= from && candidate.date <= to)) {
        const values = dimensions.map((name) => String(fact[name] ?? '(not set)'));
        const key = JSON.stringify(values);
        const group = groups.get(key) ?? { dimensionValues: values.map((value) => ({ value })), sums: metrics.map(() => 0) };
        metrics.forEach((name, index) => { group.sums[index] = (group.sums[index] ?? 0) + Number(fact[name] ?? 0); });
        groups.set(key, group);
      }
      const all = [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, group]) => ({
        dimensionValues: group.dimensionValues, metricValues: group.sums.map((sum) => ({ value: String(sum) })),
      }));
      const offset = Number(body.offset ?? 0);
      const limit = Number(body.limit ?? 10_000);
      const rows = all.slice(offset, offset + limit);
      return {
        dimensionHeaders: dimensions.map((name) => ({ name })),
        metricHeaders: metrics.map((name) => ({ name, type: METRIC_TYPES[name] })),
        ...(rows.length === 0 ? {} : { rows }),
        rowCount: all.length,
        metadata: { currencyCode: 'EUR', timeZone: 'Europe/Berlin' },
        kind: 'analyticsData#runReport',
      };
    });
  });
  return api;
}

/** A property with ten days of traffic from three sources, read 25 report rows a request, as a service account. */
export const googleAnalyticsContract: ContractVendor = {
  type: 'web_analytics',
  async start() {
    const oauth = new GoogleOAuth();
    const today = new Date();
    const day = (daysAgo: number): string => new Date(today.getTime() - daysAgo * DAY_MS).toISOString().slice(0, 10).replaceAll('-', '');
    const facts = Array.from({ length: 10 }, (_, index) => ['google', 'newsletter', 'partner'].map((source): AnalyticsFact => ({
      date: day(index + 1), sessionSource: source, sessionMedium: 'referral', sessionCampaignName: '(not set)', hostName: 'example.com', pagePath: '/',
      pageTitle: 'Home', country: 'Germany', sessions: 10, engagedSessions: 5, totalUsers: 8, newUsers: 2, screenPageViews: 1, keyEvents: 0, userEngagementDuration: 30,
    }))).flat();
    const api = await startGoogleAnalyticsFake(new Map([['312345678', facts]]), oauth, today);
    const account = makeServiceAccount(`${api.url}/token`);
    oauth.serviceAccounts.set(account.clientEmail, account);
    return {
      api, env: { WEB_ANALYTICS_CREDENTIALS: account.keyFile }, pagedPath: '/v1beta/', table: 'traffic', key: '(date, session_source, session_medium)',
      section: ['web_analytics:', '  property_id: 312345678', '  credentials_env: WEB_ANALYTICS_CREDENTIALS', '  start_date: 30daysAgo', '  page_size: 25', `  base_url: ${api.url}`],
      revoke() {
        // The key was deleted in the Cloud console: Google now knows the account by another key.
        oauth.serviceAccounts.set(account.clientEmail, makeServiceAccount(`${api.url}/token`));
        return () => { oauth.serviceAccounts.set(account.clientEmail, account); };
      },
      refusal: (url) => `POST ${url}/token answered 400 Bad Request: Invalid JWT Signature.`,
    };
  },
};
