import type { FastifyReply, FastifyRequest } from 'fastify';
import { basicOf, records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

export interface JiraIssue {
  expand: string;
  id: string;
  self: string;
  key: string;
  fields: Record<string, unknown> & { summary: string; created: string; updated: string; project: { id: string; key: string; name: string; projectTypeKey?: string } };
}

export interface JiraData {
  issues: JiraIssue[];
  projects: Record<string, unknown>[];
  users: Record<string, unknown>[];
}

export interface FakeJira {
  readonly api: FakeApi;
  readonly baseUrl: string;
  apiToken: string;
  data: JiraData;
  close(): Promise<void>;
}

const EPOCH = Date.UTC(2024, 0, 1);
const PROJECTS = [{ id: '10000', key: 'SHOP', name: 'Shop' }, { id: '10001', key: 'OPS', name: 'Operations' }, { id: '10002', key: 'HR', name: 'People' }];

/** Jira writes times with milliseconds and a numeric zone. */
const jiraTime = (ms: number): string => new Date(ms).toISOString().replace('Z', '+0000');

const user = (n: number) => ({
  self: `https://acme.atlassian.net/rest/api/3/user?accountId=5b10ac8d82e05b22cc7d4e${String(n)}`, accountId: `5b10ac8d82e05b22cc7d4e${String(n)}`,
  accountType: 'atlassian', emailAddress: `user${String(n)}@acme.example`, displayName: `User ${String(n)}`, active: true, timeZone: 'Europe/Berlin',
  avatarUrls: { '48x48': `https://avatar.example/${String(n)}.png` },
});

export function jiraIssue(n: number, project = PROJECTS[n % 3]!): JiraIssue {
  return {
    expand: 'operations,versionedRepresentations,editmeta,changelog,renderedFields',
    id: String(20_000 + n),
    self: `https://acme.atlassian.net/rest/api/3/issue/${String(20_000 + n)}`,
    key: `${project.key}-${String(n)}`,
    fields: {
      summary: `Issue ${String(n)}`,
      status: { name: n % 4 === 0 ? 'Done' : 'In Progress', id: n % 4 === 0 ? '10002' : '3', statusCategory: { id: n % 4 === 0 ? 3 : 4, key: n % 4 === 0 ? 'done' : 'indeterminate', colorName: 'yellow', name: n % 4 === 0 ? 'Done' : 'In Progress' } },
      priority: { id: '3', name: 'Medium' },
      issuetype: { id: '10001', name: n % 5 === 0 ? 'Bug' : 'Task', subtask: false },
      project: { ...project, projectTypeKey: 'software' },
      assignee: n % 3 === 0 ? null : user(n % 3),
      reporter: user(1),
      labels: n % 2 === 0 ? ['backend', 'q1'] : [],
      components: [{ id: '10100', name: 'Checkout' }],
      description: { type: 'doc', version: 1, content: [{ type: 'paragraph', content: [{ type: 'text', text: `Steps for ${String(n)}` }] }] },
      customfield_10016: n % 2 === 0 ? 3 : null,
      created: jiraTime(EPOCH + n * 60_000),
      updated: jiraTime(EPOCH + n * 120_000),
    },
  };
}

export function defaultJiraData(): JiraData {
  return {
    issues: records(330, (n) => jiraIssue(n)),
    projects: PROJECTS.map((project) => ({ ...project, self: `https://acme.atlassian.net/rest/api/3/project/${project.id}`, projectTypeKey: 'software', simplified: false, style: 'classic', isPrivate: false, lead: user(1) })),
    users: records(60, user),
  };
}

type Query = Record<string, string | undefined>;

/** The part of JQL the fake understands: `project in ("A", "B")` or `project = A`, and `ORDER BY created ASC|DESC`. */
function runJql(jql: string, issues: JiraIssue[]): JiraIssue[] | string {
  const match = /^(?:project\s+in\s+\(([^)]*)\)|project\s*=\s*"?(\w+)"?)?\s*(?:ORDER BY created (ASC|DESC))?$/i.exec(jql.trim());
  if (match === null) return `Error in the JQL Query: the fake understands only project filters and ORDER BY created (got ${jql})`;
  const keys = match[1]?.split(',').map((key) => key.trim().replace(/"/g, '')) ?? (match[2] === undefined ? undefined : [match[2]]);
  const chosen = keys === undefined ? issues : issues.filter((issue) => keys.includes(issue.fields.project.key));
  const direction = match[3]?.toUpperCase() === 'DESC' ? -1 : 1;
  return [...chosen].sort((a, b) => direction * (a.fields.created.localeCompare(b.fields.created) || Number(a.id) - Number(b.id)));
}

/**
 * A Jira Cloud REST API v3 on loopback: Basic email and API token, `startAt`/`maxResults` pages
 * (with `total` where Jira gives it), JQL search, project, user, workflow, priority and status lists.
 */
export async function startFakeJira(options: { email: string; apiToken: string }): Promise<FakeJira> {
  const state = { apiToken: options.apiToken, data: defaultJiraData() };
  const authenticated = (request: FastifyRequest, reply: FastifyReply): boolean => {
    const credentials = basicOf(request);
    if (credentials?.user === options.email && credentials.password === state.apiToken) return true;
    void reply.code(401).type('text/plain;charset=UTF-8').send('Client must be authenticated to access this resource.');
    return false;
  };
  const window = (query: Query, largest: number) => ({ startAt: Number(query.startAt ?? 0), maxResults: Math.min(Number(query.maxResults ?? 50), largest) });
  const pageOf = <Item>(request: FastifyRequest, items: Item[]) => {
    const { startAt, maxResults } = window(request.query as Query, 100);
    const values = items.slice(startAt, startAt + maxResults);
    return { self: request.url, maxResults, startAt, total: items.length, isLast: startAt + maxResults >= items.length, values };
  };

  const api = await startFakeApi((app) => {
    app.get('/rest/api/3/search', (request, reply) => {
      if (!authenticated(request, reply)) return reply;
      const query = request.query as Query;
      const found = runJql(query.jql ?? '', state.data.issues);
      if (typeof found === 'string') return reply.code(400).send({ errorMessages: [found], errors: {} });
      const { startAt, maxResults } = window(query, 100);
      return { expand: 'schema,names', startAt, maxResults, total: found.length, issues: found.slice(startAt, startAt + maxResults) };
    });
    app.get('/rest/api/3/project/search', (request, reply) => (authenticated(request, reply) ? pageOf(request, state.data.projects) : reply));
    app.get('/rest/api/3/users/search', (request, reply) => {
      if (!authenticated(request, reply)) return reply;
      const { startAt, maxResults } = window(request.query as Query, 1000);
      return state.data.users.slice(startAt, startAt + maxResults);
    });
  });

  return {
    api,
    baseUrl: `${api.url}/rest/api/3`,
    get apiToken() { return state.apiToken; },
    set apiToken(value) { state.apiToken = value; },
    get data() { return state.data; },
    set data(value) { state.data = value; },
    close: () => api.close(),
  };
}

/** The default site data, its issues searched page by page. */
export const jiraContract: ContractVendor = {
  type: 'issue_tracker',
  async start() {
    const token = 'jira-contract-token';
    const fake = await startFakeJira({ email: 'ops@acme.example', apiToken: token });
    return {
      api: fake.api, env: { ISSUE_TRACKER_API_TOKEN: token }, pagedPath: '/rest/api/3/search', table: 'issues', key: 'id',
      section: ['generic_config:', '  site: acme', '  email: ops@acme.example', `  base_url: "${fake.baseUrl}"`],
      revoke() {
        fake.apiToken = 'a-new-token';
        return () => { fake.apiToken = token; };
      },
      refusal: () => `GET ${fake.baseUrl}/search answered 401 Unauthorized: Client must be authenticated to access this resource.`,
    };
  },
};
