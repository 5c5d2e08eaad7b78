import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.ts';
import { parseSources } from '../../src/sources/config/index.ts';
import { startFakeJira, type FakeJira } from '../fakes/jira.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const EMAIL = 'bot@acme.example';
const TOKEN = 'atlassian-api-token';

let jira: FakeJira;
let quarry: TestQuarry;

beforeAll(async () => {
  jira = await startFakeJira({ email: EMAIL, apiToken: TOKEN });
  quarry = await startQuarry({
    env: { ISSUE_TRACKER_API_TOKEN: TOKEN },
    sourcesYaml: `sources:
  - name: jira
    type: issue_tracker
    generic_config: {site: acme, email: ${EMAIL}, base_url: "${jira.baseUrl}"}
  - name: jira_shop
    type: issue_tracker
    generic_config: {site: acme, email: ${EMAIL}, base_url: "${jira.baseUrl}", projects: [SHOP, OPS], resources: [issues]}
`,
  });
});

afterAll(async () => {
  await quarry.close();
  await jira.close();
});

function requestsTo(path: string, from = 0) {
  return jira.api.requests.slice(from).filter((request) => request.path === `/rest/api/3/${path}`);
}

describe('issue_tracker (Jira Cloud)', () => {
  it('searches every issue with JQL, page by page from startAt, and loads projects and users', async () => {
    expect(await syncAndWait(quarry, 'jira')).toMatchObject({ type: 'sync_completed', rows: 330 + 3 + 60 });
    const counts = await quarry.query(`SELECT (SELECT count(*) FROM raw_jira.issues) AS issues,
      (SELECT count(*) FROM raw_jira.projects) AS projects, (SELECT count(*) FROM raw_jira.users) AS users`);
    expect(counts).toEqual([{ issues: 330, projects: 3, users: 60 }]);
    const issue = await quarry.query(`SELECT key, fields.status.statusCategory."key" AS category, fields.assignee.displayName AS assignee,
      fields.labels[2] AS label, fields.description.content[1].content[1].text AS text, fields.customfield_10016 AS points
      FROM raw_jira.issues WHERE id = '20004'`);
    expect(issue).toEqual([{ key: 'OPS-4', category: 'done', assignee: 'User 1', label: 'q1', text: 'Steps for 4', points: 3 }]);
    expect(await quarry.query("SELECT lead.displayName AS lead FROM raw_jira.projects WHERE \"key\" = 'SHOP'")).toEqual([{ lead: 'User 1' }]);

    const searches = requestsTo('search');
    expect(searches.map((request) => [request.query.get('startAt'), request.query.get('maxResults')]))
      .toEqual([[null, '100'], ['100', '100'], ['200', '100'], ['300', '100']]);
    expect(searches[0]?.query.get('jql')).toBe('ORDER BY created ASC');
    expect(requestsTo('users/search').map((request) => request.query.get('startAt'))).toEqual([null, '50']);
  });

  it('limits the search to the configured projects', async () => {
    const before = jira.api.requests.length;
    expect(await syncAndWait(quarry, 'jira_shop')).toMatchObject({ type: 'sync_completed', rows: 220 });
    expect(requestsTo('search', before)[0]?.query.get('jql')).toBe('project in ("SHOP", "OPS") ORDER BY created ASC');
    expect(await quarry.query('SELECT DISTINCT fields.project."key" AS project FROM raw_jira_shop.issues ORDER BY 1')).toEqual([{ project: 'OPS' }, { project: 'SHOP' }]);
  });

  it('refuses a config without site, bad project keys or unknown resources, naming the field', () => {
    let caught: unknown;
    try {
      parseSources(`sources:
  - name: jira
    type: issue_tracker
    generic_config: {site: acme, projects: [shop], resources: [issues, boards]}
  - name: nowhere
    type: issue_tracker
    generic_config: {email: bot@acme.example}
`);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).problems).toEqual([
      'sources.yml: sources[0].generic_config.projects[0]: "shop" is not a project key: use capital letters, digits and underscores, starting with a letter',
      'sources.yml: sources[0].generic_config.resources[1]: expected one of issues, projects, users, workflows, issue_types, priorities, statuses, got "boards"',
      'sources.yml: sources[1].generic_config.site: required unless base_url is set',
    ]);
  });
});
