import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.ts';
import { parseSources } from '../../src/sources/config/index.ts';
import { greenhouseCandidate, greenhouseTime, startFakeGreenhouse, type FakeGreenhouse } from '../fakes/greenhouse.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const API_KEY = 'harvest-api-key';

let greenhouse: FakeGreenhouse;
let quarry: TestQuarry;

beforeAll(async () => {
  greenhouse = await startFakeGreenhouse({ apiKey: API_KEY });
  quarry = await startQuarry({
    env: { RECRUITING_API_KEY: API_KEY },
    sourcesYaml: `sources:
  - name: hiring
    type: recruiting
    generic_config: {base_url: "${greenhouse.baseUrl}"}
  - name: hiring_february
    type: recruiting
    generic_config: {base_url: "${greenhouse.baseUrl}", resources: [candidates], start_date: 2024-02-01, end_date: 2024-02-29}
`,
  });
});

afterAll(async () => {
  await quarry.close();
  await greenhouse.close();
});

function requestsTo(path: string, from = 0) {
  return greenhouse.api.requests.slice(from).filter((request) => request.path === `/v1/${path}`);
}

describe('recruiting (Greenhouse Harvest)', () => {
  it('loads every default resource page by page with the key as Basic user and an empty password', async () => {
    expect(await syncAndWait(quarry, 'hiring')).toMatchObject({ type: 'sync_completed', rows: 1100 + 30 + 3 + 4 + 2 + 2 + 1 });
    const counts = await quarry.query(`SELECT
      (SELECT count(*) FROM raw_hiring.candidates) AS candidates, (SELECT count(*) FROM raw_hiring.applications) AS applications,
      (SELECT count(*) FROM raw_hiring.jobs) AS jobs, (SELECT count(*) FROM raw_hiring.offers) AS offers,
      (SELECT count(*) FROM raw_hiring.users) AS users, (SELECT count(*) FROM raw_hiring.departments) AS departments,
      (SELECT count(*) FROM raw_hiring.offices) AS offices`);
    expect(counts).toEqual([{ candidates: 1100, applications: 30, jobs: 3, offers: 4, users: 2, departments: 2, offices: 1 }]);
    const candidate = await quarry.query(`SELECT email_addresses[1].value AS email, recruiter.name AS recruiter,
      applications[1].current_stage.name AS stage, keyed_custom_fields.desired_salary.value AS salary FROM raw_hiring.candidates WHERE id = 4002`);
    expect(candidate).toEqual([{ email: 'candidate2@example.com', recruiter: 'Rita Recruiter', stage: 'Phone Screen', salary: '100000' }]);
    expect(await quarry.query('SELECT hiring_team.hiring_managers[1].name AS manager FROM raw_hiring.jobs WHERE id = 71')).toEqual([{ manager: 'Hank Manager' }]);
    expect(await quarry.query('SELECT custom_fields.salary.amount AS amount FROM raw_hiring.offers WHERE id = 902')).toEqual([{ amount: 100_002 }]);

    const candidates = requestsTo('candidates');
    expect(candidates.map((request) => [request.query.get('page'), request.query.get('per_page'), request.query.get('updated_after')]))
      .toEqual([[null, '500', null], ['2', '500', null], ['3', '500', null]]);
  });

  it('asks only for what changed since the last sync and merges it', async () => {
    const before = greenhouse.api.requests.length;
    const changedAt = Date.UTC(2024, 11, 1);
    greenhouse.data.candidates[9] = { ...greenhouseCandidate(10, changedAt), company: 'Globex' };
    greenhouse.data.candidates.push(greenhouseCandidate(1101, changedAt + 1000));
    expect(await syncAndWait(quarry, 'hiring')).toMatchObject({ type: 'sync_completed' });
    expect(requestsTo('candidates', before)[0]?.query.get('updated_after')).toBe(greenhouseTime(Date.UTC(2024, 0, 1) + 1100 * 3_600_000));
    expect(requestsTo('applications', before)[0]?.query.get('last_activity_after')).toBe(greenhouseTime(Date.UTC(2024, 0, 1) + 30 * 86_400_000 + 1000));
    const rows = await quarry.query("SELECT count(*) AS n, count(DISTINCT id) AS ids, any_value(company) FILTER (WHERE id = 4010) AS company FROM raw_hiring.candidates");
    expect(rows).toEqual([{ n: 1101, ids: 1101, company: 'Globex' }]);
  });

  it('filters on creation between start_date and end_date', async () => {
    const before = greenhouse.api.requests.length;
    expect(await syncAndWait(quarry, 'hiring_february')).toMatchObject({ type: 'sync_completed', rows: 58 });
    const request = requestsTo('candidates', before)[0]!;
    expect([request.query.get('created_after'), request.query.get('created_before')]).toEqual(['2024-02-01T00:00:00Z', '2024-02-29T23:59:59Z']);
  });

  it('refuses unknown resources and a backwards range, naming the field', () => {
    let caught: unknown;
    try {
      parseSources('sources:\n  - name: hiring\n    type: recruiting\n    generic_config: {resources: [candidates, interviews]}\n  - name: old\n    type: recruiting\n    generic_config: {start_date: 2024-05-01, end_date: 2024-04-01}\n');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).problems).toEqual([
      'sources.yml: sources[0].generic_config.resources[1]: expected one of candidates, applications, jobs, offers, users, departments, offices, job_posts, scorecards, got "interviews"',
      'sources.yml: sources[1].generic_config.end_date: must not be before start_date',
    ]);
  });
});
