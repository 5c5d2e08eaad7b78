import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAirtableFake, type AirtableAccount, type AirtableBase } from '../fakes/airtable.ts';
import { configProblemsOf } from '../support/config-problems.ts';
import { records, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const TOKEN = 'patFAKE1234.0123456789abcdef';
const BASE_ID = 'appAbCdEfGh123456';
const created = (n: number): string => new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString();
const recordId = (prefix: string, n: number): string => `rec${prefix}${String(n).padStart(11, '0')}`;

function airtableBase(): AirtableBase {
  return {
    id: BASE_ID,
    tables: [
      {
        id: 'tblTasks00000001', name: 'Tasks',
        fields: [{ id: 'fld1', name: 'Name', type: 'singleLineText' }, { id: 'fld2', name: 'Due Date', type: 'date' }, { id: 'fld3', name: 'Tags', type: 'multipleSelects' }, { id: 'fld4', name: 'Owner', type: 'singleCollaborator' }],
        records: records(230, (n) => ({
          id: recordId('T', n), createdTime: created(n),
          fields: {
            Name: `Task ${String(n)}`, 'Due Date': '2026-02-01', Tags: n % 2 === 0 ? ['urgent', 'ops'] : ['later'],
            ...(n % 5 === 0 ? {} : { Owner: { id: 'usr1', email: 'ann@example.com', name: 'Ann' } }),
          },
        })),
      },
      {
        id: 'tblLeads00000002', name: 'Sales Leads',
        fields: [{ id: 'fld5', name: 'Company', type: 'singleLineText' }, { id: 'fld6', name: 'Value', type: 'currency' }],
        records: records(12, (n) => ({ id: recordId('L', n), createdTime: created(n), fields: { Company: `Co ${String(n)}`, Value: n * 1000 } })),
      },
    ],
  };
}

const account: AirtableAccount = { token: TOKEN };
let api: FakeApi;
let quarry: TestQuarry;

beforeAll(async () => {
  api = await startAirtableFake(airtableBase(), account);
  quarry = await startQuarry({
    env: { TABLE_DB_ACCESS_TOKEN: TOKEN },
    sourcesYaml: [
      'sources:',
      '  - name: airtable', '    type: table_db', '    generic_config:', `      base_url: ${api.url}/v0`, `      base_id: ${BASE_ID}`,
      '  - name: airtable_leads', '    type: table_db', '    generic_config:', `      base_url: ${api.url}/v0`, `      base_id: ${BASE_ID}`, '      table_names: [Sales Leads]', '',
    ].join('\n'),
  });
});

afterAll(async () => {
  await quarry.close();
  await api.close();
});

describe('table_db (Airtable) sources', () => {
  it('loads every table the base lists, one warehouse table each, fields as a STRUCT', async () => {
    expect(await syncAndWait(quarry, 'airtable')).toMatchObject({ type: 'sync_completed', rows: 242 });
    expect(await quarry.query('SELECT (SELECT count(*) FROM raw_airtable.tasks) AS tasks, (SELECT count(*) FROM raw_airtable.sales_leads) AS leads'))
      .toEqual([{ tasks: 230, leads: 12 }]);
    expect(await quarry.query(`SELECT fields.Name AS name, fields."Due Date"::VARCHAR AS due, fields.Tags[1] AS tag, fields.Owner.email AS owner, "createdTime"::VARCHAR AS created
      FROM raw_airtable.tasks WHERE id = '${recordId('T', 42)}'`))
      .toEqual([{ name: 'Task 42', due: '2026-02-01', tag: 'urgent', owner: 'ann@example.com', created: '2026-01-01 00:42:00' }]);
    expect(await quarry.query(`SELECT fields.Owner AS owner FROM raw_airtable.tasks WHERE id = '${recordId('T', 5)}'`)).toEqual([{ owner: null }]);
    const pages = api.requests.filter((request) => request.path === '/v0/appAbCdEfGh123456/Tasks');
    expect(pages.map((request) => request.query.get('offset'))).toEqual([null, `itrFakeTasks00000001/${recordId('T', 101)}`, `itrFakeTasks00000001/${recordId('T', 201)}`]);
    expect(pages[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('loads only the tables named in table_names, without the metadata API', async () => {
    const before = api.requests.length;
    expect(await syncAndWait(quarry, 'airtable_leads')).toMatchObject({ type: 'sync_completed', rows: 12 });
    expect(api.requests.slice(before).map((request) => request.path)).toEqual(['/v0/appAbCdEfGh123456/Sales%20Leads']);
    expect(await quarry.query('SELECT sum(fields."Value") AS total FROM raw_airtable_leads.sales_leads')).toEqual([{ total: 78_000 }]);
  });

  it('refuses a generic_config without a base id, or with ill-formed keys, naming each place', () => {
    expect(configProblemsOf([
        'sources:',
        '  - {name: a, type: table_db, generic_config: {table_names: [Tasks]}}',
        '  - {name: b, type: table_db, generic_config: {base_id: shop, table_names: Tasks, access_token_env: my-token}}',
        '',
      ].join('\n'))).toEqual([
      'sources.yml: sources[0].generic_config.base_id: required',
      'sources.yml: sources[1].generic_config.base_id: "shop" is not an Airtable base id: it starts with "app" followed by 14 letters or digits',
      'sources.yml: sources[1].generic_config.table_names: expected list, got string',
      'sources.yml: sources[1].generic_config.access_token_env: "my-token" is not an environment variable name: use capital letters, digits and underscores, not starting with a digit',
    ]);
  });
});
