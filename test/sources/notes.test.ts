import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNotionFake, type NotionAccount, type NotionWorkspace } from '../fakes/notion.ts';
import { configProblemsOf } from '../support/config-problems.ts';
import { records, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const TOKEN = 'secret_FakeNotionIntegrationToken0000000000';
const TASKS_DB = '8e2c4b1a-1111-4aaa-9bbb-000000000001';
const DOCS_DB = '8e2c4b1a-2222-4aaa-9bbb-000000000002';
const time = (minutes: number): string => new Date(Date.UTC(2026, 0, 1) + minutes * 60_000).toISOString();
const pageId = (group: number, n: number): string => `5a5a5a5a-${String(group).padStart(4, '0')}-4000-8000-${String(n).padStart(12, '0')}`;

const richText = (content: string) => [{
  type: 'text', text: { content, link: null }, plain_text: content, href: null,
  annotations: { bold: false, italic: false, strikethrough: false, underline: false, code: false, color: 'default' },
}];

function database(id: string, title: string): Record<string, unknown> {
  return {
    object: 'database', id, created_time: time(0), last_edited_time: time(1), title: richText(title), description: [],
    parent: { type: 'workspace', workspace: true }, url: `https://www.notion.so/${id.replaceAll('-', '')}`, archived: false, is_inline: false,
    properties: {
      Name: { id: 'title', name: 'Name', type: 'title', title: {} },
      Status: { id: 'st%3A', name: 'Status', type: 'select', select: { options: [{ id: 'o1', name: 'Done', color: 'green' }, { id: 'o2', name: 'Open', color: 'red' }] } },
    },
  };
}

function row(databaseId: string, group: number, n: number): NotionWorkspace['pages'][number] {
  return {
    object: 'page', id: pageId(group, n), created_time: time(n), last_edited_time: time(n), archived: false, in_trash: false,
    created_by: { object: 'user', id: 'u-1' }, parent: { type: 'database_id', database_id: databaseId }, url: `https://www.notion.so/row-${String(n)}`,
    properties: {
      Name: { id: 'title', type: 'title', title: richText(`Row ${String(group)}.${String(n)}`) },
      Status: { id: 'st%3A', type: 'select', select: n % 2 === 0 ? { id: 'o1', name: 'Done', color: 'green' } : null },
      Tags: { id: 'tg%3A', type: 'multi_select', multi_select: [{ id: 't1', name: 'alpha', color: 'blue' }] },
    },
  };
}

function workspace(): NotionWorkspace {
  return {
    databases: [database(TASKS_DB, 'Tasks'), database(DOCS_DB, 'Docs')],
    pages: [
      ...records(150, (n) => row(TASKS_DB, 1, n)),
      ...records(20, (n) => row(DOCS_DB, 2, n)),
      ...records(5, (n) => ({
        object: 'page', id: pageId(3, n), created_time: time(n), last_edited_time: time(n), archived: false, in_trash: false,
        created_by: { object: 'user', id: 'u-1' }, parent: { type: 'workspace', workspace: true }, url: `https://www.notion.so/page-${String(n)}`,
        properties: { title: { id: 'title', type: 'title', title: richText(`Page ${String(n)}`) } },
      })),
    ],
    users: [
      { object: 'user', id: 'u-1', type: 'person', name: 'Ann', avatar_url: null, person: { email: 'ann@example.com' } },
      { object: 'user', id: 'u-2', type: 'person', name: 'Bob', avatar_url: null, person: { email: 'bob@example.com' } },
      { object: 'user', id: 'u-3', type: 'bot', name: 'Quarry', avatar_url: null, bot: { owner: { type: 'workspace', workspace: true } } },
    ],
  };
}

const account: NotionAccount = { token: TOKEN };
let api: FakeApi;
let quarry: TestQuarry;

beforeAll(async () => {
  api = await startNotionFake(workspace(), account);
  quarry = await startQuarry({
    env: { NOTES_API_KEY: TOKEN },
    sourcesYaml: [
      'sources:',
      '  - name: notion', '    type: notes', '    generic_config:', `      base_url: ${api.url}/v1`,
      '  - name: notion_docs', '    type: notes', '    generic_config:', `      base_url: ${api.url}/v1`,
      `      database_ids: ["${DOCS_DB.replaceAll('-', '')}"]`, '      resources: [database_rows, users]', '',
    ].join('\n'),
  });
});

afterAll(async () => {
  await quarry.close();
  await api.close();
});

describe('notes (Notion) sources', () => {
  it('loads the shared databases, the rows of each, and every page, paging with start_cursor in the body', async () => {
    expect(await syncAndWait(quarry, 'notion')).toMatchObject({ type: 'sync_completed', rows: 2 + 170 + 175 });
    expect(await quarry.query(`SELECT (SELECT count(*) FROM raw_notion.databases) AS databases, (SELECT count(*) FROM raw_notion.pages) AS pages,
      (SELECT count(*) FROM raw_notion.database_rows WHERE parent.database_id = '${TASKS_DB}') AS tasks,
      (SELECT count(*) FROM raw_notion.database_rows WHERE parent.database_id = '${DOCS_DB}') AS docs`))
      .toEqual([{ databases: 2, pages: 175, tasks: 150, docs: 20 }]);
    expect(await quarry.query(`SELECT properties.Name.title[1].plain_text AS name, properties.Status.select.name AS status, properties.Tags.multi_select[1].name AS tag
      FROM raw_notion.database_rows WHERE id = '${pageId(1, 42)}'`)).toEqual([{ name: 'Row 1.42', status: 'Done', tag: 'alpha' }]);
    expect(await quarry.query(`SELECT title[1].plain_text AS title, properties.Status.select.options[2].name AS second FROM raw_notion.databases WHERE id = '${DOCS_DB}'`))
      .toEqual([{ title: 'Docs', second: 'Open' }]);
    const queries = api.requests.filter((request) => request.path === `/v1/databases/${TASKS_DB}/query`);
    expect(queries.map((request) => (request.body as { start_cursor?: string }).start_cursor)).toEqual([undefined, pageId(1, 101)]);
    expect(queries[0]!.headers['notion-version']).toBe('2022-06-28');
    expect(queries[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('queries only the databases named in database_ids, and lists users with start_cursor in the query', async () => {
    const before = api.requests.length;
    expect(await syncAndWait(quarry, 'notion_docs')).toMatchObject({ type: 'sync_completed', rows: 23 });
    expect(api.requests.slice(before).map((request) => `${request.method} ${request.path}`)).toEqual([
      `POST /v1/databases/${DOCS_DB.replaceAll('-', '')}/query`, 'GET /v1/users',
    ]);
    expect(await quarry.query("SELECT name, person.email AS email FROM raw_notion_docs.users WHERE type = 'person' ORDER BY name"))
      .toEqual([{ name: 'Ann', email: 'ann@example.com' }, { name: 'Bob', email: 'bob@example.com' }]);
  });

  it('refuses database ids that are not Notion ids and resources it cannot load, naming each place', () => {
    expect(configProblemsOf('sources:\n  - {name: n, type: notes, generic_config: {database_ids: [tasks], resources: [pages, blocks], api_key_env: 9KEY}}\n')).toEqual([
      'sources.yml: sources[0].generic_config.api_key_env: "9KEY" is not an environment variable name: use capital letters, digits and underscores, not starting with a digit',
      'sources.yml: sources[0].generic_config.database_ids[0]: "tasks" is not a Notion database id: 32 hexadecimal digits, with or without dashes',
      'sources.yml: sources[0].generic_config.resources[1]: expected one of databases, database_rows, pages, users, got "blocks"',
    ]);
  });
});
