import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGoogleAdsFake, type AdsAccount, type AdsRow } from '../fakes/google-ads.ts';
import { startGoogleAnalyticsFake, type AnalyticsFact } from '../fakes/google-analytics.ts';
import { GoogleOAuth } from '../fakes/google-oauth.ts';
import { greenhouseCandidate, startFakeGreenhouse, type FakeGreenhouse } from '../fakes/greenhouse.ts';
import { startShopifyFake, type ShopifyShop } from '../fakes/shopify.ts';
import { startSlackFake, type SlackWorkspace } from '../fakes/slack.ts';
import { startStripeFake, type StripeObject } from '../fakes/stripe.ts';
import { startFakeYouTube, type FakeYouTube } from '../fakes/youtube.ts';
import { startFakeZendesk, zendeskTicket, type FakeZendesk } from '../fakes/zendesk.ts';
import { records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { logMessages, syncAndWait } from '../support/sync.ts';

const STRIPE_KEY = 'sk_test_51Fake0000000000000000000000abcd';
const JANUARY_FIRST_2025 = Date.UTC(2025, 0, 1) / 1000;

/** Customers created one every 6 hours from 2025-01-01: four a day, 40 in all. */
const customer = (n: number, email = `buyer${String(n)}@example.com`): StripeObject => ({
  id: `cus_${String(n).padStart(6, '0')}`, object: 'customer', created: JANUARY_FIRST_2025 + (n - 1) * 6 * 3600, livemode: false, metadata: {}, email,
});
const stripe: Record<string, StripeObject[]> = { customers: records(40, (n) => customer(n)) };

const shopDay = (day: number, hour = 10) => new Date(Date.UTC(2026, 0, day, hour)).toISOString().replace('.000Z', '+00:00');
const order = (n: number, note = 'original') => ({ id: 5_000_000 + n, created_at: shopDay(n), updated_at: shopDay(n, 12), note });
const shop: ShopifyShop = {
  accessToken: 'shpat_good',
  resources: new Map<string, Record<string, unknown>[]>([
    ['orders', records(20, (n) => order(n))],
    ['locations', [{ id: 1, name: 'Warehouse' }]],
  ]),
};

interface Item { id: number; name: string; updated_at: string }
/** One item an hour from 2026-01-01 01:00. */
const ITEMS = records(100, (n): Item => ({ id: n, name: `item ${String(n)}`, updated_at: new Date(Date.UTC(2026, 0, 1) + n * 3_600_000).toISOString() }));
let items = [...ITEMS];

let stripeApi: FakeApi;
let shopApi: FakeApi;
let restApi: FakeApi;
let quarry: TestQuarry;

beforeAll(async () => {
  stripeApi = await startStripeFake(stripe, { secretKey: STRIPE_KEY });
  shopApi = await startShopifyFake(shop);
  restApi = await startFakeApi((app) => {
    app.get('/v1/items', (request) => {
      const since = (request.query as { updated_since?: string }).updated_since;
      return { data: items.filter((item) => since === undefined || item.updated_at >= since) };
    });
  });
  quarry = await startQuarry({
    env: { PAYMENTS_API_KEY: STRIPE_KEY, STOREFRONT_ACCESS_TOKEN: 'shpat_good' },
    prepare: async (dir) => { await mkdir(path.join(dir, 'data'), { recursive: true }); },
    sourcesYaml: [
      'sources:',
      `  - {name: stripe, type: payments, payments: {base_url: "${stripeApi.url}", endpoints: [customers], start_date: 2025-01-01}}`,
      `  - {name: shop, type: storefront, generic_config: {shop: acme, base_url: "${shopApi.url}", resources: [orders, locations], page_size: 50}}`,
      '  - name: api',
      '    type: rest_api',
      '    rest_api:',
      `      base_url: ${restApi.url}/v1`,
      '      auth_type: none',
      '      endpoints:',
      '        - {path: /items, data_selector: data, primary_key: id, incremental: {cursor_path: updated_at, param: updated_since}}',
      '  - {name: files, type: local_files, local_files: {directory: data}}',
      '  - {name: paused, type: local_files, enabled: false, local_files: {directory: data}}',
      '',
    ].join('\n'),
  });
  for (const name of ['stripe', 'shop', 'api']) expect(await syncAndWait(quarry, name)).toMatchObject({ type: 'sync_completed' });
});

afterAll(async () => {
  await quarry.close();
  await Promise.all([stripeApi.close(), shopApi.close(), restApi.close()]);
});

/** Starts a backfill through the API and waits for it to end. */
async function backfill(source: string, body: Record<string, unknown>) {
  const ended = quarry.nextEvent('sync_completed', (event) => event.source === source);
  const response = await quarry.request('POST', `/api/sources/${source}/sync`, { as: 'editor', body });
  expect(response.status).toBe(200);
  const event = await ended;
  await quarry.jobsIdle();
  return { response, event };
}

describe('backfill through POST /api/sources/{name}/sync', () => {
  it('payments: re-loads the window and merges it on id, leaving rows outside it and the cursor as they were', async () => {
    const cursor = (await quarry.ctx.store.sourceState.forSource('stripe')).get('customers');
    expect(cursor).toBe(customer(40).created);
    // Upstream, a customer of 2025-01-02 and one of 2025-01-05 changed.
    stripe.customers = records(40, (n) => customer(n, n === 6 || n === 18 ? `changed${String(n)}@example.com` : undefined));
    const before = stripeApi.requests.length;
    const { response, event } = await backfill('stripe', { since: '2025-01-02', until: '2025-01-02' });
    expect(response.json).toMatchObject({ success: true, message: 'Backfill from 2025-01-02 of stripe started', source_name: 'stripe' });
    expect(event.rows).toBe(4);
    const asked = stripeApi.requests.slice(before).filter((request) => request.path === '/v1/customers');
    expect(asked.map((request) => [request.query.get('created[gte]'), request.query.get('created[lte]')]))
      .toEqual([[String(Date.UTC(2025, 0, 2) / 1000), String(Date.UTC(2025, 0, 2, 23, 59, 59) / 1000)]]);
    expect(await quarry.query("SELECT count(*) AS n, count(DISTINCT id) AS ids, string_agg(email, ',' ORDER BY id) FILTER (WHERE email LIKE 'changed%') AS changed FROM raw_stripe.customers"))
      .toEqual([{ n: 40, ids: 40, changed: 'changed6@example.com' }]);
    expect((await quarry.ctx.store.sourceState.forSource('stripe')).get('customers')).toBe(cursor);
    expect(await logMessages(quarry, 'stripe', 'INFO')).toContain('Backfill of 2025-01-02 to 2025-01-02: rows of those days are re-loaded and merged, the rest stay as they are');
  });

  it('storefront: re-loads the orders created in the window and leaves the unfiltered locations alone', async () => {
    shop.resources.set('orders', records(20, (n) => order(n, n === 5 || n === 15 ? 'changed' : 'original')));
    shop.resources.set('locations', [{ id: 2, name: 'Moved' }]);
    const before = shopApi.requests.length;
    const { event } = await backfill('shop', { since: '2026-01-04', until: '2026-01-06' });
    expect(event.rows).toBe(3);
    const asked = shopApi.requests.slice(before);
    expect(asked.map((request) => request.path)).toEqual(['/admin/api/2025-07/orders.json']);
    expect(asked[0]!.query.get('created_at_min')).toBe('2026-01-04T00:00:00Z');
    expect(asked[0]!.query.get('created_at_max')).toBe('2026-01-06T23:59:59Z');
    expect(await quarry.query("SELECT count(*) AS n, count(DISTINCT id) AS ids, string_agg((id - 5000000)::VARCHAR, ',' ORDER BY id) FILTER (WHERE note = 'changed') AS changed FROM raw_shop.orders"))
      .toEqual([{ n: 20, ids: 20, changed: '5' }]);
    expect(await quarry.query('SELECT id, name FROM raw_shop.locations')).toEqual([{ id: 1, name: 'Warehouse' }]);
    // The source still lists both its tables.
    expect((await quarry.ctx.sourceReports.summary('shop')).tables.map((table) => table.name).sort()).toEqual(['locations', 'orders']);
  });

  it('rest_api: reads from the window start through the cursor parameter and keeps only records up to its end', async () => {
    const cursor = (await quarry.ctx.store.sourceState.forSource('api')).get('items');
    items = ITEMS.map((item) => (item.id === 30 || item.id === 80 ? { ...item, name: 'renamed' } : item));
    const before = restApi.requests.length;
    // 2026-01-02 00:00 to 2026-01-02 23:59:59.999: items 24 to 47.
    const { event } = await backfill('api', { since: '2026-01-02', until: '2026-01-02' });
    expect(event.rows).toBe(24);
    expect(restApi.requests.slice(before).map((request) => request.query.get('updated_since'))).toEqual(['2026-01-02T00:00:00.000Z']);
    expect(await quarry.query("SELECT count(*) AS n, count(DISTINCT id) AS ids, string_agg(id::VARCHAR, ',' ORDER BY id) FILTER (WHERE name = 'renamed') AS renamed FROM raw_api.items"))
      .toEqual([{ n: 100, ids: 100, renamed: '30' }]);
    expect((await quarry.ctx.store.sourceState.forSource('api')).get('items')).toBe(cursor);
  });

  it('answers 400 backfill_not_supported naming the types that have date ranges', async () => {
    const response = await quarry.request('POST', '/api/sources/files/sync', { as: 'editor', body: { since: '2025-01-01' } });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      detail: 'The source "files" has type local_files, which cannot re-load a window of dates; backfill works for '
        + 'payments, storefront, web_analytics, search_ads, helpdesk_a, recruiting, team_chat, video_analytics, rest_api',
      code: 'backfill_not_supported',
    });
  });

  it('answers 400 invalid_request for since after until, a future until, a bad date or until alone', async () => {
    const tomorrow = new Date(quarry.clock.now().getTime() + 86_400_000).toISOString().slice(0, 10);
    const cases: [Record<string, unknown>, string][] = [
      [{ since: '2025-02-01', until: '2025-01-01' }, 'since (2025-02-01) is after until (2025-01-01)'],
      [{ since: '2025-02-01', until: tomorrow }, `until (${tomorrow}) is in the future`],
      [{ since: '2025-02-01', full_refresh: true }, 'it cannot be a full refresh too'],
    ];
    for (const [body, detail] of cases) {
      const response = await quarry.request('POST', '/api/sources/stripe/sync', { as: 'editor', body });
      expect(response.status).toBe(400);
      expect(response.json).toEqual({ detail: expect.stringContaining(detail), code: 'invalid_request' });
    }
    for (const body of [{ since: '2025-02-30' }, { since: 'yesterday' }, { until: '2025-01-01' }]) {
      const response = await quarry.request('POST', '/api/sources/stripe/sync', { as: 'editor', body });
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({ code: 'invalid_request' });
    }
    await quarry.jobsIdle();
  });

  it('is refused to a viewer (403) and to a cookie request without the CSRF header', async () => {
    const viewer = await quarry.request('POST', '/api/sources/stripe/sync', { as: 'viewer', body: { since: '2025-01-02' } });
    expect(viewer.status).toBe(403);
    expect(viewer.json).toMatchObject({ code: 'forbidden' });
    const cookie = await quarry.login('editor');
    const bare = await quarry.request('POST', '/api/sources/stripe/sync', { cookie, body: { since: '2025-01-02' } });
    expect(bare.status).toBe(403);
    expect(bare.json).toMatchObject({ code: 'csrf_failed' });
  });
});

describe('POST /api/sync-all', () => {
  it('starts every enabled source, reports one already running, and skips the disabled one', async () => {
    const { job: running } = await quarry.ctx.jobs.startSync('stripe', { fullRefresh: false, requestedBy: 'test' });
    const response = await quarry.request('POST', '/api/sync-all', { as: 'editor' });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      success: true,
      started: 3,
      sources: [
        { source_name: 'stripe', status: 'already_running', started_at: null, detail: 'A sync of "stripe" is already queued or running', code: 'sync_in_progress' },
        ...['shop', 'api', 'files'].map((name) => ({ source_name: name, status: 'started', started_at: expect.any(String), detail: null, code: null })),
        { source_name: 'paused', status: 'skipped', started_at: null, detail: 'The source "paused" is disabled', code: 'source_disabled' },
      ],
    });
    await quarry.jobsIdle();
    const requested = (await quarry.ctx.sourceReports.history('shop', 1))[0];
    expect(requested?.status).toBe('success');
    expect(running.target).toBe('stripe');
  });

  it('is refused to a viewer and to a cookie request without the CSRF header', async () => {
    const viewer = await quarry.request('POST', '/api/sync-all', { as: 'viewer' });
    expect(viewer.status).toBe(403);
    expect(viewer.json).toMatchObject({ code: 'forbidden' });
    const bare = await quarry.request('POST', '/api/sync-all', { cookie: await quarry.login('editor') });
    expect(bare.status).toBe(403);
    expect(bare.json).toMatchObject({ code: 'csrf_failed' });
    await quarry.jobsIdle();
  });
});

/** A second project for the vendor types whose fakes need their own settings. */
describe('backfill of the other date-range types', () => {
  const DAY_MS = 86_400_000;
  const isoDay = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);
  const CUSTOMER = '1234567890';
  const campaignRow = (id: number, daysAgo: number, clicks = id): AdsRow => ({
    campaign: { resourceName: `customers/${CUSTOMER}/campaigns/${String(id)}`, id: String(id), name: `Campaign ${String(id)}`, status: 'ENABLED', advertisingChannelType: 'SEARCH' },
    segments: { date: isoDay(daysAgo) }, metrics: { impressions: String(100 * id), clicks: String(clicks) },
  });
  /** Three campaigns a day for the last four days. */
  const campaigns = (clicksOf: (id: number, daysAgo: number) => number = (id) => id, days = [4, 3, 2, 1]) =>
    days.flatMap((daysAgo) => [1, 2, 3].map((id) => campaignRow(id, daysAgo, clicksOf(id, daysAgo))));
  const ads: AdsAccount = { developerToken: 'dev-token-1', customers: new Map([[CUSTOMER, new Map([['campaign', campaigns()]])]]) };
  const oauth = new GoogleOAuth();
  const YOUTUBE_KEY = 'youtube-api-key';
  const PROPERTY = '312345678';
  /** Five days of traffic from three sources; `date` as the API writes it. */
  const traffic = (sessions: number): AnalyticsFact[] => [5, 4, 3, 2, 1].flatMap((daysAgo) => ['google', 'newsletter', 'bing'].map((source) => ({
    date: isoDay(daysAgo).replaceAll('-', ''), sessionSource: source, sessionMedium: 'organic', sessionCampaignName: '(not set)',
    sessions, engagedSessions: 1, totalUsers: 1, newUsers: 1, screenPageViews: 1, keyEvents: 0,
  })));
  const properties = new Map<string, AnalyticsFact[]>([[PROPERTY, traffic(1)]]);
  const ZENDESK_EMAIL = 'ops@acme.example';
  const ZENDESK_TOKEN = 'zendesk-api-token';
  const GREENHOUSE_KEY = 'harvest-api-key';
  const SLACK_TOKEN = 'xoxb-1111-2222-fakebottoken';
  /** Slack messages one an hour from 2026-01-01 01:00. */
  const SLACK_START = Date.UTC(2026, 0, 1) / 1000;
  const slackMessage = (n: number, text = `message ${String(n)}`) => ({ type: 'message', user: 'U001', text, ts: `${String(SLACK_START + n * 3600)}.000100` });
  const slack: SlackWorkspace = { channels: [], history: { C001: records(48, (n) => slackMessage(n)) }, members: [] };
  const CHANNEL = 'UCabcdEFGHijklMNOPqrstUV';

  let adsApi: FakeApi;
  let youtube: FakeYouTube;
  let analyticsApi: FakeApi;
  let zendesk: FakeZendesk;
  let greenhouse: FakeGreenhouse;
  let slackApi: FakeApi;
  let other: TestQuarry;

  async function backfillOf(source: string, body: Record<string, unknown>) {
    const ended = other.nextEvent('sync_completed', (event) => event.source === source);
    const response = await other.request('POST', `/api/sources/${source}/sync`, { as: 'editor', body });
    expect(response.status).toBe(200);
    const event = await ended;
    await other.jobsIdle();
    return event;
  }

  beforeAll(async () => {
    oauth.clients.set('gcloud-client', { secret: 'gcloud-secret', refreshTokens: new Set(['user-refresh']) });
    adsApi = await startGoogleAdsFake(ads, oauth, 5);
    youtube = await startFakeYouTube({ apiKey: YOUTUBE_KEY, channels: { [CHANNEL]: 30 } });
    analyticsApi = await startGoogleAnalyticsFake(properties, oauth);
    // Tickets updated one an hour from 2024-01-01 01:00.
    zendesk = await startFakeZendesk({ email: ZENDESK_EMAIL, token: ZENDESK_TOKEN, data: { tickets: records(48, (n) => zendeskTicket(n)), ticketFields: [], ticketEvents: [], ticketMetricEvents: [] } });
    greenhouse = await startFakeGreenhouse({ apiKey: GREENHOUSE_KEY });
    // Candidates created one every 12 hours from 2024-01-01 12:00.
    greenhouse.data = { ...greenhouse.data, candidates: records(20, (n) => greenhouseCandidate(n)) };
    slackApi = await startSlackFake(slack, { token: SLACK_TOKEN });
    const googleCredentials = (url: string) => JSON.stringify({
      type: 'authorized_user', client_id: 'gcloud-client', client_secret: 'gcloud-secret', refresh_token: 'user-refresh', token_uri: `${url}/token`,
    });
    other = await startQuarry({
      env: {
        ADS_CREDENTIALS: googleCredentials(adsApi.url), SEARCH_ADS_DEVELOPER_TOKEN: 'dev-token-1', VIDEO_ANALYTICS_API_KEY: YOUTUBE_KEY,
        ANALYTICS_CREDENTIALS: googleCredentials(analyticsApi.url), HELPDESK_A_API_TOKEN: ZENDESK_TOKEN, RECRUITING_API_KEY: GREENHOUSE_KEY,
        TEAM_CHAT_ACCESS_TOKEN: SLACK_TOKEN,
      },
      sourcesYaml: [
        'sources:',
        '  - name: ads',
        '    type: search_ads',
        '    search_ads:',
        '      property_id: 123-456-7890',
        '      credentials_env: ADS_CREDENTIALS',
        '      resources: [campaign_stats]',
        `      base_url: ${adsApi.url}`,
        '  - name: videos',
        '    type: video_analytics',
        `    generic_config: {channel_ids: [${CHANNEL}], base_url: "${youtube.baseUrl}"}`,
        '  - name: site',
        '    type: web_analytics',
        `    web_analytics: {property_id: ${PROPERTY}, credentials_env: ANALYTICS_CREDENTIALS, start_date: 30daysAgo, resources: [traffic], base_url: ${analyticsApi.url}}`,
        '  - name: support',
        '    type: helpdesk_a',
        `    generic_config: {subdomain: acme, email: ${ZENDESK_EMAIL}, base_url: ${zendesk.baseUrl}, resources: [tickets]}`,
        '  - name: hiring',
        '    type: recruiting',
        `    generic_config: {base_url: "${greenhouse.baseUrl}", resources: [candidates]}`,
        '  - name: chat',
        '    type: team_chat',
        `    team_chat: {base_url: "${slackApi.url}/api", selected_channels: [C001], resources: [messages]}`,
        '',
      ].join('\n'),
    });
    for (const name of ['ads', 'videos', 'site', 'support', 'hiring', 'chat']) expect(await syncAndWait(other, name)).toMatchObject({ type: 'sync_completed' });
  });

  afterAll(async () => {
    await other.close();
    await Promise.all([adsApi.close(), youtube.close(), analyticsApi.close(), zendesk.close(), greenhouse.close(), slackApi.close()]);
  });

  it('search_ads: replaces the rows of the window\'s days by segments.date and leaves the other days as they were', async () => {
    expect(await other.query('SELECT count(*) AS n FROM raw_ads.campaign_stats')).toEqual([{ n: 12 }]);
    // Upstream, every day's clicks changed, and campaign 3 has no row two days ago any more.
    ads.customers.get(CUSTOMER)!.set('campaign', campaigns((id) => 10 * id).filter((row) => !(row.segments.date === isoDay(2) && row.campaign!.id === '3')));
    const before = adsApi.requests.length;
    const event = await backfillOf('ads', { since: isoDay(3), until: isoDay(2) });
    expect(event.rows).toBe(5);
    const queries = adsApi.requests.slice(before).filter((request) => request.path.endsWith(':search')).map((request) => (request.body as { query: string }).query);
    expect(queries).toHaveLength(1);
    expect(queries[0]).toContain(`segments.date BETWEEN '${isoDay(3)}' AND '${isoDay(2)}'`);
    const byDay = await other.query(`SELECT segments.date::VARCHAR AS day, count(*) AS n, string_agg(metrics.clicks, ',' ORDER BY campaign.id) AS clicks
      FROM raw_ads.campaign_stats GROUP BY 1 ORDER BY 1`);
    expect(byDay).toEqual([
      { day: isoDay(4), n: 3, clicks: '1,2,3' },
      { day: isoDay(3), n: 3, clicks: '10,20,30' },
      { day: isoDay(2), n: 2, clicks: '10,20' },
      { day: isoDay(1), n: 3, clicks: '1,2,3' },
    ]);
  });

  it('video_analytics: replaces the playlist items and videos published in the window and leaves the channels and the other videos alone', async () => {
    const channel = youtube.channels.get(CHANNEL)!;
    expect(await other.query(`SELECT (SELECT count(*) FROM raw_videos.playlist_items) AS items, (SELECT count(*) FROM raw_videos.videos) AS videos,
      (SELECT count(*) FROM raw_videos.channels) AS channels`)).toEqual([{ items: 30, videos: 30, channels: 1 }]);
    // Video n is published n days after 2024-01-01: videos 9 to 11 fall within 2024-01-10..2024-01-12.
    channel.title = 'Renamed channel';
    for (const video of channel.videos) if (video.id.endsWith('0010') || video.id.endsWith('0020')) video.title = 'Renamed';
    const before = youtube.api.requests.length;
    const event = await backfillOf('videos', { since: '2024-01-10', until: '2024-01-12' });
    expect(event.rows).toBe(3 + 3);
    const videoRequests = youtube.api.requests.slice(before).filter((request) => request.path === '/youtube/v3/videos');
    expect(videoRequests.map((request) => request.query.get('id')!.split(',').sort())).toEqual([['abcdvid0009', 'abcdvid0010', 'abcdvid0011']]);
    expect(await other.query(`SELECT count(*) AS n, count(DISTINCT id) AS ids, string_agg(id, ',' ORDER BY id) FILTER (WHERE snippet.title = 'Renamed') AS renamed
      FROM raw_videos.videos`)).toEqual([{ n: 30, ids: 30, renamed: 'abcdvid0010' }]);
    expect(await other.query(`SELECT count(*) AS n, count(DISTINCT contentDetails.videoId) AS ids,
      string_agg(contentDetails.videoId, ',' ORDER BY contentDetails.videoId) FILTER (WHERE snippet.title = 'Renamed') AS renamed FROM raw_videos.playlist_items`))
      .toEqual([{ n: 30, ids: 30, renamed: 'abcdvid0010' }]);
    expect(await other.query('SELECT snippet.title AS title FROM raw_videos.channels')).toEqual([{ title: 'Channel abcd' }]);
  });

  it('web_analytics: re-reads the window\'s days of a report and merges them on its dimensions, leaving the other days as they were', async () => {
    const cursor = (await other.ctx.store.sourceState.forSource('site')).get('traffic');
    // Upstream, every day's figures changed.
    properties.set(PROPERTY, traffic(7));
    const before = analyticsApi.requests.length;
    const event = await backfillOf('site', { since: isoDay(3), until: isoDay(3) });
    expect(event.rows).toBe(3);
    const asked = analyticsApi.requests.slice(before).filter((request) => request.path.endsWith(':runReport'));
    expect(asked.map((request) => (request.body as { dateRanges: unknown }).dateRanges)).toEqual([[{ startDate: isoDay(3), endDate: isoDay(3) }]]);
    expect(await other.query(`SELECT date::VARCHAR AS day, count(*) AS n, count(DISTINCT session_source) AS sources, sum(sessions) AS sessions
      FROM raw_site.traffic GROUP BY 1 ORDER BY 1`)).toEqual([5, 4, 3, 2, 1].map((daysAgo) => ({ day: isoDay(daysAgo), n: 3, sources: 3, sessions: daysAgo === 3 ? 21 : 3 })));
    expect((await other.ctx.store.sourceState.forSource('site')).get('traffic')).toBe(cursor);
  });

  it('helpdesk_a: exports the tickets updated in the window and merges them on id, leaving the others as they were', async () => {
    expect(await other.query('SELECT count(*) AS n FROM raw_support.tickets')).toEqual([{ n: 48 }]);
    zendesk.data.tickets = records(48, (n) => ({ ...zendeskTicket(n), subject: n === 10 || n === 30 ? 'Changed' : `Ticket ${String(n)}` }));
    const before = zendesk.api.requests.length;
    // 2024-01-02 00:00 to 23:59:59: tickets 24 to 47.
    const event = await backfillOf('support', { since: '2024-01-02', until: '2024-01-02' });
    expect(event.rows).toBe(24);
    const asked = zendesk.api.requests.slice(before).filter((request) => request.path === '/api/v2/incremental/tickets/cursor.json');
    expect(asked[0]?.query.get('start_time')).toBe(String(Date.UTC(2024, 0, 2) / 1000));
    expect(await other.query("SELECT count(*) AS n, count(DISTINCT id) AS ids, string_agg(id::VARCHAR, ',' ORDER BY id) FILTER (WHERE subject = 'Changed') AS changed FROM raw_support.tickets"))
      .toEqual([{ n: 48, ids: 48, changed: '30' }]);
  });

  it('recruiting: reads the candidates created in the window and merges them on id, leaving the others as they were', async () => {
    const cursor = (await other.ctx.store.sourceState.forSource('hiring')).get('candidates');
    expect(await other.query('SELECT count(*) AS n FROM raw_hiring.candidates')).toEqual([{ n: 20 }]);
    greenhouse.data = { ...greenhouse.data, candidates: records(20, (n) => ({ ...greenhouseCandidate(n), title: n === 3 || n === 9 ? 'Changed' : 'Engineer' })) };
    const before = greenhouse.api.requests.length;
    // 2024-01-02: candidates 2 (00:00) and 3 (12:00).
    const event = await backfillOf('hiring', { since: '2024-01-02', until: '2024-01-02' });
    expect(event.rows).toBe(2);
    const asked = greenhouse.api.requests.slice(before).filter((request) => request.path === '/v1/candidates');
    expect(asked.map((request) => [request.query.get('created_after'), request.query.get('created_before'), request.query.get('updated_after')]))
      .toEqual([['2024-01-02T00:00:00Z', '2024-01-02T23:59:59Z', null]]);
    expect(await other.query("SELECT count(*) AS n, count(DISTINCT id) AS ids, string_agg(id::VARCHAR, ',' ORDER BY id) FILTER (WHERE title = 'Changed') AS changed FROM raw_hiring.candidates"))
      .toEqual([{ n: 20, ids: 20, changed: '4003' }]);
    expect((await other.ctx.store.sourceState.forSource('hiring')).get('candidates')).toBe(cursor);
  });

  it('team_chat: reads the window\'s messages of each channel and merges them on channel and ts, leaving the others as they were', async () => {
    expect(await other.query('SELECT count(*) AS n FROM raw_chat.messages')).toEqual([{ n: 48 }]);
    slack.history.C001 = records(48, (n) => slackMessage(n, n === 10 || n === 30 ? 'edited' : `message ${String(n)}`));
    const before = slackApi.requests.length;
    // 2026-01-02 00:00 to 23:59:59: messages 24 to 47.
    const event = await backfillOf('chat', { since: '2026-01-02', until: '2026-01-02' });
    expect(event.rows).toBe(24);
    const asked = slackApi.requests.slice(before).filter((request) => request.path === '/api/conversations.history');
    expect(asked.map((request) => [request.query.get('oldest'), request.query.get('latest')]))
      .toEqual([[`${String(Date.UTC(2026, 0, 2) / 1000)}.000000`, `${String(Date.UTC(2026, 0, 2, 23, 59, 59) / 1000)}.999999`]]);
    expect(await other.query("SELECT count(*) AS n, count(DISTINCT ts) AS ids, string_agg(text, ',' ORDER BY ts) FILTER (WHERE text = 'edited') AS edited, min(channel) AS channel FROM raw_chat.messages"))
      .toEqual([{ n: 48, ids: 48, edited: 'edited', channel: 'C001' }]);
  });
});
