import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAsanaFake, type AsanaAccount, type AsanaAccountData } from '../fakes/asana.ts';
import { configProblemsOf } from '../support/config-problems.ts';
import { records, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const TOKEN = '2/1200000000000000/1200000000000001:fakeasanatoken';
const at = (hour: number): string => new Date(Date.UTC(2026, 0, 1) + hour * 3_600_000).toISOString();
const user = (n: number) => ({ gid: `300${String(n)}`, resource_type: 'user', name: `Person ${String(n)}`, email: `person${String(n)}@example.com`, photo: { image_128x128: `https://example.com/${String(n)}.png` } });

function task(gid: number, project: { gid: string; name: string }, modifiedHour = gid % 1000) {
  return {
    gid: String(gid), resource_type: 'task', name: `Task ${String(gid)}`, resource_subtype: 'default_task', completed: gid % 4 === 0,
    completed_at: gid % 4 === 0 ? at(modifiedHour) : null, created_at: at(0), modified_at: at(modifiedHour), due_on: '2026-03-01', start_on: null,
    notes: `Notes of ${String(gid)}`, assignee: gid % 3 === 0 ? null : user(gid % 3), parent: null, num_subtasks: 0,
    memberships: [{ project: { gid: project.gid, resource_type: 'project', name: project.name }, section: { gid: `${project.gid}9`, resource_type: 'section', name: 'To do' } }],
    tags: gid % 2 === 0 ? [{ gid: '4001', resource_type: 'tag', name: 'urgent' }] : [],
    custom_fields: [{ gid: '5001', resource_type: 'custom_field', name: 'Priority', display_value: 'High', type: 'enum' }],
    followers: [user(1)], permalink_url: `https://app.asana.com/0/${project.gid}/${String(gid)}`,
  };
}

const P1 = { gid: '2001', name: 'Launch' };
const P2 = { gid: '2002', name: 'Ops' };
const P3 = { gid: '2003', name: 'Hiring' };

function accountData(): AsanaAccountData {
  const launchTasks = records(150, (n) => task(10_000 + n, P1));
  const project = (found: { gid: string; name: string }, workspace: string) => ({
    ...found, resource_type: 'project', archived: false, color: 'light-green', created_at: at(0), modified_at: at(1), notes: '', public: true,
    owner: user(1), team: { gid: '6001', resource_type: 'team', name: 'Core' }, workspace: { gid: workspace, resource_type: 'workspace', name: 'W' },
    current_status: null, due_on: null, start_on: null, permalink_url: `https://app.asana.com/0/${found.gid}`,
  });
  return {
    workspaces: [
      { gid: '1001', resource_type: 'workspace', name: 'Acme', is_organization: true, email_domains: ['acme.example'] },
      { gid: '1002', resource_type: 'workspace', name: 'Side', is_organization: false, email_domains: [] },
    ],
    projects: { 1001: [project(P1, '1001'), project(P2, '1001')], 1002: [project(P3, '1002')] },
    // Three Launch tasks are multi-homed in Ops as well.
    tasks: { 2001: launchTasks, 2002: [...launchTasks.slice(0, 3), ...records(17, (n) => task(20_000 + n, P2))], 2003: records(5, (n) => task(30_000 + n, P3)) },
    users: { 1001: [user(1), user(2), user(3)], 1002: [user(1), user(4)] },
  };
}

const asana = accountData();
const account: AsanaAccount = { token: TOKEN };
let api: FakeApi;
let quarry: TestQuarry;

beforeAll(async () => {
  api = await startAsanaFake(asana, account);
  quarry = await startQuarry({
    env: { TASK_TRACKER_ACCESS_TOKEN: TOKEN },
    sourcesYaml: `sources:\n  - name: asana\n    type: task_tracker\n    generic_config:\n      base_url: ${api.url}/api/1.0\n`,
  });
});

afterAll(async () => {
  await quarry.close();
  await api.close();
});

const tasksAsked = (from: number) => api.requests.slice(from).filter((request) => request.path === '/api/1.0/tasks');

describe('task_tracker (Asana) sources', () => {
  it('loads workspaces, their projects and users, and each project\'s tasks once, with the fields it asks for', async () => {
    expect(await syncAndWait(quarry, 'asana')).toMatchObject({ type: 'sync_completed', rows: 2 + 3 + 172 + 5 });
    expect(await quarry.query(`SELECT (SELECT count(*) FROM raw_asana.workspaces) AS workspaces, (SELECT count(*) FROM raw_asana.projects) AS projects,
      (SELECT count(*) FROM raw_asana.tasks) AS tasks, (SELECT count(DISTINCT gid) FROM raw_asana.tasks) AS task_gids, (SELECT count(*) FROM raw_asana.users) AS users`))
      .toEqual([{ workspaces: 2, projects: 3, tasks: 172, task_gids: 172, users: 5 }]);
    expect(await quarry.query(`SELECT name, assignee.email AS assignee, memberships[1].section.name AS section, tags[1].name AS tag, custom_fields[1].display_value AS priority
      FROM raw_asana.tasks WHERE gid = '10004'`)).toEqual([{ name: 'Task 10004', assignee: 'person2@example.com', section: 'To do', tag: 'urgent', priority: 'High' }]);
    expect(await quarry.query("SELECT name, team.name AS team FROM raw_asana.projects WHERE gid = '2003'")).toEqual([{ name: 'Hiring', team: 'Core' }]);
    expect(await quarry.query("SELECT workspace_gid, email FROM raw_asana.users WHERE gid = '3001' ORDER BY workspace_gid"))
      .toEqual([{ workspace_gid: '1001', email: 'person1@example.com' }, { workspace_gid: '1002', email: 'person1@example.com' }]);
    const columns = await quarry.query("SELECT column_name FROM information_schema.columns WHERE table_schema = 'raw_asana' AND table_name = 'tasks' AND column_name = 'followers'");
    expect(columns).toEqual([]);
    const launch = tasksAsked(0).filter((request) => request.query.get('project') === '2001');
    expect(launch.map((request) => request.query.get('offset') === null)).toEqual([true, false]);
    expect(launch[0]!.query.get('limit')).toBe('100');
    expect(launch[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('asks each project only for tasks modified since its last sync and merges them on gid', async () => {
    const launch = asana.tasks['2001']!;
    launch.splice(9, 1, { ...task(10_010, P1, 500), name: 'Renamed' });
    asana.tasks['2003']!.push(task(30_006, P3, 501));
    const before = api.requests.length;
    expect(await syncAndWait(quarry, 'asana')).toMatchObject({ type: 'sync_completed' });
    const asked = new Map(tasksAsked(before).map((request) => [request.query.get('project'), request.query.get('modified_since')]));
    expect(Object.fromEntries(asked)).toEqual({ 2001: at(150), 2002: at(17), 2003: at(5) });
    expect(await quarry.query("SELECT count(*) AS n, count(DISTINCT gid) AS gids, count(*) FILTER (WHERE name = 'Renamed') AS renamed FROM raw_asana.tasks"))
      .toEqual([{ n: 173, gids: 173, renamed: 1 }]);
    expect((await quarry.ctx.store.sourceState.forSource('asana')).get('tasks/2001')).toBe(at(500));
  });

  it('refuses workspace gids that are not numbers and resources it cannot load, naming each place', () => {
    expect(configProblemsOf('sources:\n  - {name: a, type: task_tracker, generic_config: {workspace_gids: [], resources: [tasks, portfolios]}}\n')).toEqual([
      'sources.yml: sources[0].generic_config.workspace_gids: must not be empty',
      'sources.yml: sources[0].generic_config.resources[1]: expected one of workspaces, projects, tasks, users, sections, tags, got "portfolios"',
    ]);
  });
});
