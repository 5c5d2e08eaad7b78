import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';
import { GoogleOAuth, makeServiceAccount } from '../fakes/google-oauth.ts';
import { startGoogleAnalyticsFake, type AnalyticsFact } from '../fakes/google-analytics.ts';

const PROPERTY = '312345678';
const DAY_MS = 86_400_000;
const today = new Date();
const dayKey = (daysAgo: number) => new Date(today.getTime() - daysAgo * DAY_MS).toISOString().slice(0, 10).replaceAll('-', '');
const isoDay = (daysAgo: number) => new Date(today.getTime() - daysAgo * DAY_MS).toISOString().slice(0, 10);
const SOURCES = [['google', 'organic'], ['newsletter', 'email'], ['(direct)', '(none)']] as const;
const PAGES = ['/', '/pricing', '/docs', '/blog/launch'];

/** Ten days of traffic: three sources and four pages a day. */
function facts(): AnalyticsFact[] {
  const all: AnalyticsFact[] = [];
  for (let daysAgo = 10; daysAgo >= 1; daysAgo -= 1) {
    SOURCES.forEach(([source, medium], index) => {
      for (const [page, pagePath] of PAGES.entries()) {
        all.push({
          date: dayKey(daysAgo), sessionSource: source, sessionMedium: medium, sessionCampaignName: '(not set)',
          hostName: 'example.com', pagePath, pageTitle: `Title ${pagePath}`, country: 'Germany',
          sessions: 10 * (index + 1), engagedSessions: 5, totalUsers: 8, newUsers: 2, screenPageViews: page + 1, keyEvents: 0, userEngagementDuration: 30,
        });
      }
    });
  }
  return all;
}

const oauth = new GoogleOAuth();
const properties = new Map<string, AnalyticsFact[]>([[PROPERTY, facts()]]);
let api: FakeApi;
let quarry: TestQuarry;

beforeAll(async () => {
  api = await startGoogleAnalyticsFake(properties, oauth, today);
  const account = makeServiceAccount(`${api.url}/token`);
  oauth.serviceAccounts.set(account.clientEmail, account);
  const source = (name: string, credentialsEnv: string) => [
    `  - name: ${name}`, '    type: web_analytics', '    web_analytics:', `      property_id: ${PROPERTY}`,
    `      credentials_env: ${credentialsEnv}`, '      start_date: 30daysAgo', '      page_size: 25', `      base_url: ${api.url}`,
    '      queries:', '        - { name: countries, dimensions: [country], metrics: [sessions] }',
  ].join('\n');
  quarry = await startQuarry({
    env: { ANALYTICS_CREDENTIALS: account.keyFile },
    sourcesYaml: ['sources:', source('site', 'ANALYTICS_CREDENTIALS'), ''].join('\n'),
  });
});

afterAll(async () => {
  await quarry.close();
  await api.close();
});

const reports = () => api.requests.filter((request) => request.path.endsWith(':runReport'));

describe('web_analytics (Google Analytics 4 Data API)', () => {
  it('signs in as the service account and loads the built-in reports and a custom one, paging by offset', async () => {
    const first = await syncAndWait(quarry, 'site');
    expect(first).toEqual({ type: 'sync_completed', source: 'site', rows: 30 + 40 + 1, timestamp: expect.any(String) });
    expect(await quarry.query(`SELECT count(*) AS n, sum(sessions) AS sessions, min(date)::VARCHAR AS first, max(date)::VARCHAR AS last FROM raw_site.traffic`))
      .toEqual([{ n: 30, sessions: 10 * 4 * (10 + 20 + 30), first: isoDay(10), last: isoDay(1) }]);
    expect(await quarry.query(`SELECT screen_page_views FROM raw_site.pages WHERE page_path = '/docs' AND date = '${isoDay(3)}'`))
      .toEqual([{ screen_page_views: 3 * 3 }]);
    expect(await quarry.query('SELECT country, sessions FROM raw_site.countries')).toEqual([{ country: 'Germany', sessions: 2400 }]);
    const traffic = reports().filter((request) => (request.body as { dimensions: { name: string }[] }).dimensions.some((d) => d.name === 'sessionSource'));
    expect(traffic.map((request) => (request.body as { offset?: number }).offset ?? 0)).toEqual([0, 25]);
    expect((traffic[0]?.body as { dateRanges: unknown }).dateRanges).toEqual([{ startDate: isoDay(30), endDate: isoDay(0) }]);
    expect(oauth.issued).toBe(1);
  });

  it('re-reads from the last loaded day and merges the changed figures', async () => {
    const data = properties.get(PROPERTY)!;
    for (const fact of data.filter((candidate) => candidate.date === dayKey(1))) fact.sessions = 1;
    data.push({ ...data[0]!, date: dayKey(0), sessions: 7 });
    const before = reports().length;
    expect(await syncAndWait(quarry, 'site')).toMatchObject({ type: 'sync_completed' });
    const again = reports().slice(before);
    expect((again[0]?.body as { dateRanges: unknown }).dateRanges).toEqual([{ startDate: isoDay(1), endDate: isoDay(0) }]);
    expect(await quarry.query(`SELECT count(*) AS n, count(DISTINCT (date, session_source, session_medium)) AS keys FROM raw_site.traffic`))
      .toEqual([{ n: 31, keys: 31 }]);
    expect(await quarry.query(`SELECT sum(sessions) AS sessions FROM raw_site.traffic WHERE date = '${isoDay(1)}'`)).toEqual([{ sessions: 12 }]);
    expect((await quarry.ctx.store.sourceState.forSource('site')).get('traffic')).toBe(isoDay(0));
  });
});
