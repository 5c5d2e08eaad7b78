import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.ts';
import { parseSources } from '../../src/sources/config/index.ts';
import { DEAL_SOURCE_FIELD, pipedriveDeal, pipedriveTime, startFakePipedrive, type FakePipedrive } from '../fakes/pipedrive.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const TOKEN = 'pipedrive-api-token';

let pipedrive: FakePipedrive;
let quarry: TestQuarry;

beforeAll(async () => {
  pipedrive = await startFakePipedrive({ apiToken: TOKEN });
  quarry = await startQuarry({
    env: { CRM_C_API_TOKEN: TOKEN },
    sourcesYaml: `sources:\n  - name: sales\n    type: crm_c\n    generic_config: {company_domain: acme, base_url: "${pipedrive.baseUrl}"}\n`,
  });
});

afterAll(async () => {
  await quarry.close();
  await pipedrive.close();
});

function recentsFor(item: string, from = 0) {
  return pipedrive.api.requests.slice(from).filter((request) => request.path === '/api/v1/recents' && request.query.get('items') === item);
}

describe('crm_c (Pipedrive)', () => {
  it('loads every default resource with the api_token parameter, following next_start', async () => {
    expect(await syncAndWait(quarry, 'sales')).toMatchObject({ type: 'sync_completed', rows: 1200 + 40 + 10 + 30 + 1 + 3 + 2 });
    const counts = await quarry.query(`SELECT
      (SELECT count(*) FROM raw_sales.deals) AS deals, (SELECT count(*) FROM raw_sales.persons) AS persons,
      (SELECT count(*) FROM raw_sales.organizations) AS organizations, (SELECT count(*) FROM raw_sales.activities) AS activities,
      (SELECT count(*) FROM raw_sales.pipelines) AS pipelines, (SELECT count(*) FROM raw_sales.stages) AS stages,
      (SELECT count(*) FROM raw_sales.users) AS users`);
    expect(counts).toEqual([{ deals: 1200, persons: 40, organizations: 10, activities: 30, pipelines: 1, stages: 3, users: 2 }]);
    const deal = await quarry.query(`SELECT title, user_id.email AS owner, person_id.email[1].value AS email, org_id.name AS org,
      "${DEAL_SOURCE_FIELD}" AS lead_source FROM raw_sales.deals WHERE id = 12`);
    expect(deal).toEqual([{ title: 'Deal 12', owner: 'owner0@acme.example', email: 'person12@example.com', org: 'Org 2', lead_source: 'Webinar' }]);
    expect(await quarry.query('SELECT email[2].label AS label FROM raw_sales.persons WHERE id = 3')).toEqual([{ label: 'home' }]);

    const deals = recentsFor('deal');
    expect(deals.map((request) => [request.query.get('start'), request.query.get('since_timestamp')]))
      .toEqual([[null, '1970-01-01 00:00:00'], ['500', '1970-01-01 00:00:00'], ['1000', '1970-01-01 00:00:00']]);
    expect(deals.every((request) => request.query.get('api_token') === TOKEN && request.query.get('limit') === '500')).toBe(true);
  });

  it('asks /recents only for what changed since the last update_time and merges it', async () => {
    const before = pipedrive.api.requests.length;
    const changedAt = Date.UTC(2025, 5, 1);
    pipedrive.data.deals[99] = { ...pipedriveDeal(100, changedAt), status: 'won', value: 99_999 };
    pipedrive.data.deals.push(pipedriveDeal(1201, changedAt + 1000));
    expect(await syncAndWait(quarry, 'sales')).toMatchObject({ type: 'sync_completed' });
    expect(recentsFor('deal', before)[0]?.query.get('since_timestamp')).toBe(pipedriveTime(Date.UTC(2024, 0, 1) + 1200 * 3_600_000));
    const rows = await quarry.query("SELECT count(*) AS n, count(DISTINCT id) AS ids, any_value(value) FILTER (WHERE id = 100) AS value FROM raw_sales.deals");
    expect(rows).toEqual([{ n: 1201, ids: 1201, value: 99_999 }]);
    expect((await quarry.ctx.store.sourceState.forSource('sales')).get('deals')).toBe(pipedriveTime(changedAt + 1000));
  });

  it('refuses unknown resources and a bad company domain, naming the field', () => {
    let caught: unknown;
    try {
      parseSources('sources:\n  - name: sales\n    type: crm_c\n    generic_config: {company_domain: "acme.pipedrive.com", resources: [deals, leads], api_token_env: token}\n');
    } catch (error) {
      caught = error;
    }
    expect((caught as ConfigError).problems).toEqual([
      'sources.yml: sources[0].generic_config.company_domain: "acme.pipedrive.com" is not a subdomain: use letters, digits and inner hyphens',
      'sources.yml: sources[0].generic_config.api_token_env: "token" is not an environment variable name: use capital letters, digits and underscores, not starting with a digit',
      'sources.yml: sources[0].generic_config.resources[1]: expected one of deals, persons, organizations, activities, pipelines, stages, users, products, got "leads"',
    ]);
  });
});
