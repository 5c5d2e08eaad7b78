import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { records, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';
import { startMetaMarketingFake, type InsightFact, type MetaAdAccount } from '../fakes/meta-marketing.ts';

const ACCOUNT = 'act_1029384756';
const DAY_MS = 86_400_000;
const isoDay = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);
const time = '2026-01-05T10:00:00+0000';

const account: MetaAdAccount = {
  accessToken: 'EAAB-token',
  accountId: ACCOUNT,
  campaigns: records(3, (n) => ({ id: `23850000${String(n)}`, name: `Campaign ${String(n)}`, status: 'ACTIVE', effective_status: 'ACTIVE', objective: 'OUTCOME_TRAFFIC', special_ad_categories: [], created_time: time, updated_time: time })),
  adsets: records(4, (n) => ({
    id: `23851000${String(n)}`, name: `Ad set ${String(n)}`, campaign_id: '238500001', status: 'ACTIVE', billing_event: 'IMPRESSIONS', optimization_goal: 'LINK_CLICKS',
    targeting: { geo_locations: { countries: ['DE', 'AT'] }, age_min: 18 + n, age_max: 65 }, created_time: time, updated_time: time,
  })),
  ads: records(6, (n) => ({ id: `23852000${String(n)}`, name: `Ad ${String(n)}`, adset_id: '238510001', campaign_id: '238500001', status: 'ACTIVE', creative: { id: `9${String(n)}`, name: 'hidden unless asked' }, created_time: time, updated_time: time })),
  adcreatives: records(2, (n) => ({ id: `9${String(n)}`, name: `Creative ${String(n)}`, title: 'Try Quarry', body: 'Data, simply', object_story_spec: { page_id: '111', link_data: { link: 'https://example.com', message: 'Hi' } } })),
  // Forty days of six ads: 240 facts, of which the first sync's 30-day window holds 6 × 31.
  insights: Array.from({ length: 40 }, (_, day) => records(6, (n): InsightFact => ({
    ad_id: `23852000${String(n)}`, date: isoDay(39 - day), impressions: 100 * n, clicks: n, spend: n * 1.5, link_clicks: n - 1,
  }))).flat(),
  leads: new Map(records(6, (n) => [`23852000${String(n)}`, n > 2 ? [] : records(3, (lead) => ({
    id: `lead-${String(n)}-${String(lead)}`, created_time: time, ad_id: `23852000${String(n)}`, form_id: '555', is_organic: false,
    field_data: [{ name: 'email', values: [`lead${String(lead)}@example.com`] }, { name: 'full_name', values: ['Ann Example'] }],
  }))] as const)),
};

let api: FakeApi;
let quarry: TestQuarry;

beforeAll(async () => {
  api = await startMetaMarketingFake(account);
  const source = (name: string, tokenEnv: string, resources: string) => [
    `  - name: ${name}`, '    type: social_ads', '    social_ads:', `      account_id: ${ACCOUNT}`, `      access_token_env: ${tokenEnv}`,
    `      resources: ${resources}`, `      base_url: ${api.url}`,
  ].join('\n');
  quarry = await startQuarry({
    env: { SOCIAL_ADS_ACCESS_TOKEN: 'EAAB-token' },
    sourcesYaml: ['sources:', source('meta', 'SOCIAL_ADS_ACCESS_TOKEN', '[campaigns, ads, ad_sets, ad_creatives, leads, facebook_insights]'), ''].join('\n'),
  });
});

afterAll(async () => {
  await quarry.close();
  await api.close();
});

const insightRequests = () => api.requests.filter((request) => request.path.endsWith('/insights'));

describe('social_ads (Meta Marketing API)', () => {
  it('loads the account objects, leads of each ad and the last 30 days of daily ad insights, following paging.next', async () => {
    expect(await syncAndWait(quarry, 'meta')).toMatchObject({ type: 'sync_completed', rows: 3 + 6 + 4 + 2 + 6 + 6 * 31 });
    expect(await quarry.query('SELECT count(*) AS n FROM raw_meta.campaigns')).toEqual([{ n: 3 }]);
    expect(await quarry.query("SELECT array_to_string(targeting.geo_locations.countries, ',') AS countries, targeting.age_min AS age FROM raw_meta.ad_sets WHERE id = '238510002'"))
      .toEqual([{ countries: 'DE,AT', age: 20 }]);
    expect(await quarry.query("SELECT creative.id AS creative FROM raw_meta.ads WHERE id = '238520003'")).toEqual([{ creative: '93' }]);
    expect(await quarry.query("SELECT object_story_spec.link_data.link AS link FROM raw_meta.ad_creatives WHERE id = '91'")).toEqual([{ link: 'https://example.com' }]);
    expect(await quarry.query("SELECT count(*) AS n, list_filter(max(field_data), f -> f.name = 'email')[1].values[1] AS email FROM raw_meta.leads WHERE ad_id = '238520001'"))
      .toEqual([{ n: 3, email: 'lead3@example.com' }]);
    expect(await quarry.query(`SELECT count(*) AS n, sum(spend::DOUBLE) AS spend, min(date_start)::VARCHAR AS first FROM raw_meta.facebook_insights`))
      .toEqual([{ n: 186, spend: 31 * 1.5 * 21, first: isoDay(30) }]);
    expect(await quarry.query(`SELECT actions[1].value AS link_clicks FROM raw_meta.facebook_insights WHERE ad_id = '238520004' LIMIT 1`)).toEqual([{ link_clicks: '3' }]);
    const pages = insightRequests();
    expect(pages.length).toBe(2);
    expect(JSON.parse(pages[0]!.query.get('time_range')!)).toEqual({ since: isoDay(30), until: isoDay(0) });
    expect(pages[1]!.query.get('after')).not.toBeNull();
  });

  it('asks a re-sync for insights from the last loaded day and merges changed days', async () => {
    for (const fact of account.insights.filter((candidate) => candidate.date === isoDay(0))) fact.spend = 100;
    const before = insightRequests().length;
    expect(await syncAndWait(quarry, 'meta')).toMatchObject({ type: 'sync_completed' });
    const again = insightRequests()[before]!;
    expect(JSON.parse(again.query.get('time_range')!)).toEqual({ since: isoDay(0), until: isoDay(0) });
    expect(await quarry.query(`SELECT count(*) AS n, count(DISTINCT (ad_id, date_start)) AS keys, sum(spend::DOUBLE) FILTER (WHERE date_start = '${isoDay(0)}') AS today FROM raw_meta.facebook_insights`))
      .toEqual([{ n: 186, keys: 186, today: 600 }]);
  });
});
