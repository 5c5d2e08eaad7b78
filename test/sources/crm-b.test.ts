import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { records, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';
import { makeConnectedApp, startSalesforceFake, type SObjectData } from '../fakes/salesforce.ts';

const stamp = (minute: number) => new Date(Date.UTC(2026, 0, 5, 10, minute)).toISOString().replace('Z', '+0000');
const COMMON = [{ name: 'Id', type: 'id' }, { name: 'Name', type: 'string' }, { name: 'IsDeleted', type: 'boolean' }, { name: 'SystemModstamp', type: 'datetime' }];

function sObject(count: number, prefix: string, extra: { name: string; type: string }[], make: (n: number) => Record<string, unknown>): SObjectData {
  return {
    fields: [...COMMON, ...extra, { name: 'Photo', type: 'base64' }],
    records: records(count, (n) => ({ Id: `${prefix}${String(n).padStart(12, '0')}`, Name: `${prefix} ${String(n)}`, IsDeleted: false, SystemModstamp: stamp(n), Photo: 'binary', ...make(n) })),
  };
}

const objects = new Map<string, SObjectData>([
  ['Account', sObject(25, '001', [{ name: 'Industry', type: 'picklist' }, { name: 'BillingAddress', type: 'address' }, { name: 'AnnualRevenue', type: 'currency' }],
    (n) => ({ Industry: n % 2 === 0 ? 'Energy' : 'Retail', BillingAddress: { city: `City ${String(n)}`, country: 'DE', postalCode: '10115', street: null }, AnnualRevenue: n * 1000 }))],
  ['Contact', sObject(12, '003', [{ name: 'Email', type: 'email' }, { name: 'AccountId', type: 'reference' }], (n) => ({ Email: `c${String(n)}@example.com`, AccountId: '001000000000001' }))],
  ['Lead', sObject(7, '00Q', [{ name: 'Status', type: 'picklist' }], () => ({ Status: 'Open - Not Contacted' }))],
  ['Opportunity', sObject(9, '006', [{ name: 'StageName', type: 'picklist' }, { name: 'Amount', type: 'currency' }], (n) => ({ StageName: 'Prospecting', Amount: n * 500 }))],
  ['Campaign', sObject(3, '701', [{ name: 'IsActive', type: 'boolean' }], () => ({ IsActive: true }))],
]);

const connectedApp = makeConnectedApp();
let api: FakeApi;
let quarry: TestQuarry;

beforeAll(async () => {
  connectedApp.users.add('integration@acme.example');
  api = await startSalesforceFake(connectedApp, objects, 10);
  const source = (name: string, credentialsEnv: string) => [`  - name: ${name}`, '    type: crm_b', '    crm_b:', `      credentials_env: ${credentialsEnv}`].join('\n');
  quarry = await startQuarry({
    env: {
      CRM_B_CREDENTIALS: connectedApp.credentials(api.url, 'integration@acme.example'),
    },
    sourcesYaml: ['sources:', source('salesforce', 'CRM_B_CREDENTIALS'), ''].join('\n'),
  });
});

afterAll(async () => {
  await quarry.close();
  await api.close();
});

const queries = () => api.requests.filter((request) => request.path.endsWith('/queryAll'));

describe('crm_b (Salesforce REST API)', () => {
  it('signs in with the JWT bearer flow, uses the instance_url, and loads every field of the five default sObjects', async () => {
    expect(await syncAndWait(quarry, 'salesforce')).toMatchObject({ type: 'sync_completed', rows: 25 + 12 + 7 + 9 + 3 });
    for (const [table, count] of [['account', 25], ['contact', 12], ['lead', 7], ['opportunity', 9], ['campaign', 3]] as const) {
      expect(await quarry.query(`SELECT count(*) AS n FROM raw_salesforce.${table}`)).toEqual([{ n: count }]);
    }
    expect(await quarry.query("SELECT BillingAddress.city AS city, AnnualRevenue AS revenue, Industry FROM raw_salesforce.account WHERE Id = '001000000000004'"))
      .toEqual([{ city: 'City 4', revenue: 4000, Industry: 'Energy' }]);
    const columns = await quarry.query("SELECT column_name FROM information_schema.columns WHERE table_schema = 'raw_salesforce' AND table_name = 'account'");
    expect(columns.map((row) => row.column_name)).not.toContain('attributes');
    expect(columns.map((row) => row.column_name)).not.toContain('Photo');
    const account = queries().filter((request) => request.query.get('q')?.includes('FROM Account'));
    expect(account[0]?.query.get('q')).toBe('SELECT Id, Name, IsDeleted, SystemModstamp, Industry, BillingAddress, AnnualRevenue FROM Account ORDER BY SystemModstamp ASC');
    expect(api.requests.filter((request) => request.path.startsWith('/services/data/v62.0/query/')).length).toBe(2 + 1);
  });

  it('asks a re-sync for records modified after the saved SystemModstamp and merges them on Id', async () => {
    const accounts = objects.get('Account')!.records;
    Object.assign(accounts[2]!, { Name: 'Renamed', SystemModstamp: stamp(90) });
    Object.assign(accounts[5]!, { IsDeleted: true, SystemModstamp: stamp(91) });
    accounts.push({ ...accounts[0]!, Id: '001000000000026', Name: 'New', SystemModstamp: stamp(92) });
    const before = queries().length;
    expect(await syncAndWait(quarry, 'salesforce')).toMatchObject({ type: 'sync_completed', rows: 3 });
    expect(queries()[before]?.query.get('q')).toContain(`FROM Account WHERE SystemModstamp > 2026-01-05T10:25:00Z ORDER BY`);
    expect(await quarry.query('SELECT count(*) AS n, count(*) FILTER (WHERE IsDeleted) AS deleted, count(*) FILTER (WHERE Name = \'Renamed\') AS renamed FROM raw_salesforce.account'))
      .toEqual([{ n: 26, deleted: 1, renamed: 1 }]);
  });
});
