import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { logMessages, syncAndWait } from '../support/sync.ts';
import { GoogleOAuth } from '../fakes/google-oauth.ts';
import { startGoogleAdsFake, type AdsAccount, type AdsRow } from '../fakes/google-ads.ts';

const CUSTOMER = '1234567890';
const MANAGER = '9876543210';
const DAY_MS = 86_400_000;
const isoDay = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);

const metrics = (n: number) => ({ impressions: String(100 * n), clicks: String(n), costMicros: String(n * 250_000), conversions: n / 2, ctr: 0.01, averageCpc: 250_000 });
const campaign = (id: number) => ({ resourceName: `customers/${CUSTOMER}/campaigns/${String(id)}`, id: String(id), name: `Campaign ${String(id)}`, status: 'ENABLED', advertisingChannelType: 'SEARCH' });
const adGroup = (id: number) => ({ resourceName: `customers/${CUSTOMER}/adGroups/${String(id)}`, id: String(id), name: `Group ${String(id)}`, status: 'ENABLED', type: 'SEARCH_STANDARD' });

/** `days` days (the oldest 40 days back, outside the default range) of rows for `perDay` entities made by `make`. */
function daily(days: number[], perDay: number, make: (n: number, date: string) => AdsRow): AdsRow[] {
  return days.flatMap((daysAgo) => Array.from({ length: perDay }, (_, index) => make(index + 1, isoDay(daysAgo))));
}
const DAYS = [40, 3, 2, 1];

const account: AdsAccount = {
  developerToken: 'dev-token-1',
  managedBy: MANAGER,
  customers: new Map([[CUSTOMER, new Map<string, AdsRow[]>([
    ['campaign', daily(DAYS, 3, (n, date) => ({ campaign: campaign(n), segments: { date }, metrics: metrics(n) }))],
    ['ad_group', daily(DAYS, 4, (n, date) => ({ campaign: campaign(1), adGroup: adGroup(n), segments: { date }, metrics: metrics(n) }))],
    ['keyword_view', daily(DAYS, 5, (n, date) => ({
      campaign: campaign(1), adGroup: adGroup(1), segments: { date }, metrics: metrics(n),
      adGroupCriterion: { resourceName: `customers/${CUSTOMER}/adGroupCriteria/1~${String(n)}`, criterionId: String(n), status: 'ENABLED', keyword: { text: `keyword ${String(n)}`, matchType: n % 2 === 0 ? 'EXACT' : 'BROAD' } },
    }))],
    ['ad_group_ad', daily(DAYS, 2, (n, date) => ({
      campaign: campaign(1), adGroup: adGroup(1), segments: { date }, metrics: metrics(n),
      adGroupAd: { resourceName: `customers/${CUSTOMER}/adGroupAds/1~${String(n)}`, status: 'ENABLED', ad: { id: String(n), name: `Ad ${String(n)}`, type: 'RESPONSIVE_SEARCH_AD', finalUrls: [`https://example.com/${String(n)}`] } },
    }))],
    ['search_term_view', daily(DAYS, 6, (n, date) => ({
      campaign: campaign(1), adGroup: adGroup(1), segments: { date }, metrics: metrics(n),
      searchTermView: { resourceName: `customers/${CUSTOMER}/searchTermViews/1~1~${String(n)}`, searchTerm: `term ${String(n)}`, status: 'NONE' },
    }))],
  ])]]),
};

const oauth = new GoogleOAuth();
let api: FakeApi;
let quarry: TestQuarry;

beforeAll(async () => {
  oauth.clients.set('gcloud-client', { secret: 'gcloud-secret', refreshTokens: new Set(['user-refresh']) });
  api = await startGoogleAdsFake(account, oauth, 5);
  const credentials = (refreshToken: string) => JSON.stringify({
    type: 'authorized_user', client_id: 'gcloud-client', client_secret: 'gcloud-secret', refresh_token: refreshToken, token_uri: `${api.url}/token`,
  });
  const source = (name: string, credentialsEnv: string) => [
    `  - name: ${name}`, '    type: search_ads', '    search_ads:', '      property_id: 123-456-7890', `      login_customer_id: "${MANAGER}"`,
    `      credentials_env: ${credentialsEnv}`, `      base_url: ${api.url}`,
  ].join('\n');
  quarry = await startQuarry({
    env: { ANALYTICS_CREDENTIALS: credentials('user-refresh'), SEARCH_ADS_DEVELOPER_TOKEN: 'dev-token-1' },
    sourcesYaml: ['sources:', source('ads', 'ANALYTICS_CREDENTIALS'), ''].join('\n'),
  });
});

afterAll(async () => {
  await quarry.close();
  await api.close();
});

const searches = () => api.requests.filter((request) => request.path.endsWith(':search'));

describe('search_ads (Google Ads API)', () => {
  it('runs the five GAQL reports for the last 30 days, page by page, with the developer token and manager account', async () => {
    expect(await syncAndWait(quarry, 'ads')).toMatchObject({ type: 'sync_completed', rows: 3 * (3 + 4 + 5 + 2 + 6) });
    for (const [table, perDay] of [['campaign_stats', 3], ['ad_group_stats', 4], ['keyword_stats', 5], ['ad_stats', 2], ['search_term_stats', 6]] as const) {
      expect(await quarry.query(`SELECT count(*) AS n FROM raw_ads.${table}`)).toEqual([{ n: 3 * perDay }]);
    }
    expect(await quarry.query(`SELECT campaign.name AS name, sum(metrics.clicks::INTEGER) AS clicks FROM raw_ads.campaign_stats GROUP BY 1 ORDER BY 1`))
      .toEqual([{ name: 'Campaign 1', clicks: 3 }, { name: 'Campaign 2', clicks: 6 }, { name: 'Campaign 3', clicks: 9 }]);
    expect(await quarry.query(`SELECT ad_group_criterion.keyword.match_type AS match, ad_group_criterion.keyword.text AS text FROM raw_ads.keyword_stats WHERE ad_group_criterion.criterion_id = '2' LIMIT 1`))
      .toEqual([{ match: 'EXACT', text: 'keyword 2' }]);
    expect(await quarry.query(`SELECT ad_group_ad.ad.final_urls[1] AS url FROM raw_ads.ad_stats WHERE ad_group_ad.ad.id = '2' LIMIT 1`)).toEqual([{ url: 'https://example.com/2' }]);
    const first = searches()[0]!;
    expect(first.path).toBe(`/v21/customers/${CUSTOMER}/googleAds:search`);
    expect(first.headers['developer-token']).toBe('dev-token-1');
    expect(first.headers['login-customer-id']).toBe(MANAGER);
    expect((first.body as { query: string }).query).toContain(`WHERE segments.date BETWEEN '${isoDay(30)}' AND '${isoDay(0)}'`);
    expect(searches().filter((request) => (request.body as { query: string }).query.includes('FROM search_term_view'))
      .map((request) => (request.body as { pageToken?: string }).pageToken === undefined)).toEqual([true, false, false, false]);
  });

  // A refused refresh token is the engine contract's (test/sources/connector-contract.test.ts); the developer token is Google Ads' own.
  it('fails with one line when Google refuses the developer token, keeping loaded data', async () => {
    account.developerToken = 'rotated';
    const refused = await syncAndWait(quarry, 'ads');
    const expected = `POST ${api.url}/v21/customers/${CUSTOMER}/googleAds:search answered 401 Unauthorized: Request is missing required authentication credential.`;
    expect(refused).toEqual(expect.objectContaining({ type: 'sync_failed', error: expected }));
    expect(await logMessages(quarry, 'ads', 'ERROR')).toEqual([expected]);
    expect(await quarry.query('SELECT count(*) AS n FROM raw_ads.search_term_stats')).toEqual([{ n: 18 }]);
  });
});
