import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.ts';
import { parseSources } from '../../src/sources/config/index.ts';
import { matomoVisit, startFakeMatomo, type FakeMatomo } from '../fakes/matomo.ts';
import { records } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const TOKEN = 'matomo-token-auth';
const MARCH = Date.UTC(2024, 2, 1);
/** 250 visits, ten a day from March 1 to March 26, 2024, but none on March 10. */
const VISITS = records(250, (n) => matomoVisit(n, MARCH + Math.floor((n - 1) / 10) * 86_400_000 + (n % 10) * 3_600_000 + (Math.floor((n - 1) / 10) >= 9 ? 86_400_000 : 0)));

let matomo: FakeMatomo;
let quarry: TestQuarry;

beforeAll(async () => {
  matomo = await startFakeMatomo({ tokenAuth: TOKEN, siteId: 3, today: '2024-03-31', visits: [...VISITS] });
  quarry = await startQuarry({
    env: { SELF_HOSTED_ANALYTICS_TOKEN: TOKEN },
    sourcesYaml: `sources:
  - name: analytics
    type: self_hosted_analytics
    generic_config: {base_url: "${matomo.baseUrl}", site_id: 3, start_date: 2024-03-01, resources: [visits_summary, visits, page_urls]}
`,
  });
});

afterAll(async () => {
  await quarry.close();
  await matomo.close();
});

function calls(method: string, from = 0) {
  return matomo.api.requests.slice(from).filter((request) => request.query.get('method') === method);
}

describe('self_hosted_analytics (Matomo)', () => {
  it('loads daily summaries, page URLs and every visit with token_auth, paging visits with filter_offset', async () => {
    expect(await syncAndWait(quarry, 'analytics')).toMatchObject({ type: 'sync_completed' });
    const summary = await quarry.query(`SELECT count(*) AS days, sum(nb_visits) AS visits, count(nb_visits) AS days_with_visits
      FROM raw_analytics.visits_summary`);
    // A day without visits answers `[]`: it has no row.
    expect(summary).toEqual([{ days: 25, visits: 250, days_with_visits: 25 }]);
    expect(await quarry.query("SELECT nb_visits, nb_actions FROM raw_analytics.visits_summary WHERE date = '2024-03-01'")).toEqual([{ nb_visits: 10, nb_actions: 20 }]);
    expect(await quarry.query("SELECT nb_hits FROM raw_analytics.page_urls WHERE date = '2024-03-01' AND label = '/page1'")).toEqual([{ nb_hits: 10 }]);
    expect(await quarry.query('SELECT count(*) AS n, count(DISTINCT "idVisit") AS ids FROM raw_analytics.visits')).toEqual([{ n: 250, ids: 250 }]);
    expect(await quarry.query('SELECT "actionDetails"[2].url AS url, len("actionDetails") AS actions FROM raw_analytics.visits WHERE "idVisit" = 5'))
      .toEqual([{ url: 'https://shop.example/page2', actions: 3 }]);

    const summaryCall = calls('VisitsSummary.get')[0]!;
    expect([summaryCall.query.get('token_auth'), summaryCall.query.get('idSite'), summaryCall.query.get('period'), summaryCall.query.get('date')])
      .toEqual([TOKEN, '3', 'day', '2024-03-01,today']);
    expect(calls('Live.getLastVisitsDetails').map((request) => request.query.get('filter_offset'))).toEqual([null, '100', '200']);
  });

  it('re-syncs from the last day loaded and from the last action seen, merging what changed', async () => {
    const before = matomo.api.requests.length;
    const lastAction = Math.max(...VISITS.map((visit) => visit.lastActionTimestamp));
    // The latest visit went on: four more actions.
    matomo.data.visits[248] = matomoVisit(249, VISITS[248]!.firstActionTimestamp * 1000, 5);
    matomo.data.visits.push(matomoVisit(251, (lastAction + 600) * 1000));
    expect(await syncAndWait(quarry, 'analytics')).toMatchObject({ type: 'sync_completed' });
    expect(calls('VisitsSummary.get', before)[0]?.query.get('date')).toBe('2024-03-26,today');
    expect(calls('Live.getLastVisitsDetails', before)[0]?.query.get('minTimestamp')).toBe(String(lastAction));
    expect(await quarry.query('SELECT count(*) AS n, count(DISTINCT "idVisit") AS ids FROM raw_analytics.visits')).toEqual([{ n: 251, ids: 251 }]);
    expect(await quarry.query('SELECT len("actionDetails") AS actions FROM raw_analytics.visits WHERE "idVisit" = 249')).toEqual([{ actions: 5 }]);
    expect(await quarry.query("SELECT count(*) AS days, any_value(nb_visits) FILTER (WHERE date = '2024-03-26') AS last_day FROM raw_analytics.visits_summary"))
      .toEqual([{ days: 25, last_day: 11 }]);
  });

  it('requires base_url and site_id, naming the field', () => {
    let caught: unknown;
    try {
      parseSources('sources:\n  - name: analytics\n    type: self_hosted_analytics\n    generic_config: {token_auth_env: MATOMO_TOKEN, resources: [visits, goals]}\n');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).problems).toEqual([
      'sources.yml: sources[0].generic_config.base_url: required',
      'sources.yml: sources[0].generic_config.site_id: required',
      'sources.yml: sources[0].generic_config.resources[1]: expected one of visits_summary, visits, page_urls, got "goals"',
    ]);
  });
});
