import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubSpotFake, type HubSpotAccount, type HubSpotData, type HubSpotObject } from '../fakes/hubspot.ts';
import { records, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const TOKEN = 'pat-na1-11111111-2222-3333-4444-555555555555';

function at(hour: number): string {
  return new Date(Date.UTC(2026, 0, 1) + hour * 3_600_000).toISOString();
}

function crmObject(id: number, modifiedProperty: string, properties: Record<string, string | null>): HubSpotObject {
  return {
    id: String(id), createdAt: at(id), updatedAt: at(id), archived: false,
    properties: { hs_object_id: String(id), createdate: at(id), [modifiedProperty]: at(id), ...properties },
  };
}

const contact = (n: number): HubSpotObject => crmObject(n, 'lastmodifieddate', {
  email: `person${String(n)}@example.com`, firstname: `First${String(n)}`, lastname: `Last${String(n)}`,
});

function data(): HubSpotData {
  return {
    objects: {
      contacts: [...records(250, contact), { ...contact(251), archived: true }],
      companies: records(30, (n) => crmObject(1000 + n, 'hs_lastmodifieddate', { name: `Company ${String(n)}`, domain: `c${String(n)}.example.com` })),
      deals: records(120, (n) => crmObject(2000 + n, 'hs_lastmodifieddate', { dealname: `Deal ${String(n)}`, amount: String(n * 100), dealstage: 'appointmentscheduled' })),
      tickets: records(7, (n) => crmObject(3000 + n, 'hs_lastmodifieddate', { subject: `Ticket ${String(n)}`, hs_pipeline_stage: '1' })),
      products: [], quotes: [],
    },
    owners: records(3, (n) => ({
      id: String(n), email: `owner${String(n)}@example.com`, firstName: 'Owner', lastName: String(n), userId: 100 + n,
      createdAt: at(0), updatedAt: at(0), archived: false, teams: [{ id: '7', name: 'Sales', primary: true }],
    })),
    properties: {
      contacts: [{ name: 'email', label: 'Email', type: 'string', fieldType: 'text', groupName: 'contactinformation', options: [] }],
      deals: [{
        name: 'dealstage', label: 'Deal Stage', type: 'enumeration', fieldType: 'radio', groupName: 'dealinformation',
        options: [{ label: 'Appointment scheduled', value: 'appointmentscheduled', displayOrder: 0, hidden: false }],
      }],
    },
    pipelines: {
      deals: [{
        id: 'default', label: 'Sales Pipeline', displayOrder: 0, archived: false, createdAt: at(0), updatedAt: at(0),
        stages: [
          { id: 'appointmentscheduled', label: 'Appointment Scheduled', displayOrder: 0, archived: false, metadata: { isClosed: 'false', probability: '0.2' } },
          { id: 'closedwon', label: 'Closed Won', displayOrder: 1, archived: false, metadata: { isClosed: 'true', probability: '1.0' } },
        ],
      }],
      tickets: [{ id: '0', label: 'Support Pipeline', displayOrder: 0, archived: false, createdAt: at(0), updatedAt: at(0), stages: [] }],
    },
  };
}

const hubspot = data();
const account: HubSpotAccount = { token: TOKEN };
let api: FakeApi;
let quarry: TestQuarry;

beforeAll(async () => {
  api = await startHubSpotFake(hubspot, account);
  quarry = await startQuarry({
    env: { CRM_A_API_KEY: TOKEN },
    sourcesYaml: [
      'sources:',
      '  - name: hubspot',
      '    type: crm_a',
      '    crm_a:',
      `      base_url: ${api.url}`,
      '  - name: hubspot_setup',
      '    type: crm_a',
      '    crm_a:',
      `      base_url: ${api.url}`,
      '      resources: [owners, properties, pipelines_deal, pipelines_ticket]',
      '',
    ].join('\n'),
  });
});

afterAll(async () => {
  await quarry.close();
  await api.close();
});

describe('crm_a (HubSpot) sources', () => {
  it('loads every default object type page by page, properties as a STRUCT', async () => {
    expect(await syncAndWait(quarry, 'hubspot')).toMatchObject({ type: 'sync_completed', rows: 250 + 30 + 120 + 7 });
    const counts = await quarry.query(`SELECT
      (SELECT count(*) FROM raw_hubspot.contacts) AS contacts, (SELECT count(*) FROM raw_hubspot.companies) AS companies,
      (SELECT count(*) FROM raw_hubspot.deals) AS deals, (SELECT count(*) FROM raw_hubspot.tickets) AS tickets`);
    expect(counts[0]).toEqual({ contacts: 250, companies: 30, deals: 120, tickets: 7 });
    expect(await quarry.query("SELECT properties.email AS email, properties.firstname AS firstname, archived FROM raw_hubspot.contacts WHERE id = '42'"))
      .toEqual([{ email: 'person42@example.com', firstname: 'First42', archived: false }]);
    expect(await quarry.query("SELECT properties.dealname AS name, properties.amount AS amount FROM raw_hubspot.deals WHERE id = '2005'"))
      .toEqual([{ name: 'Deal 5', amount: '500' }]);
    const contactPages = api.requests.filter((request) => request.path === '/crm/v3/objects/contacts');
    expect(contactPages.map((request) => request.query.get('after'))).toEqual([null, '101', '201']);
    expect(contactPages.every((request) => request.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('loads owners, property definitions and pipelines with their nested stages', async () => {
    expect(await syncAndWait(quarry, 'hubspot_setup')).toMatchObject({ type: 'sync_completed' });
    expect(await quarry.query('SELECT email, teams[1].name AS team FROM raw_hubspot_setup.owners ORDER BY id')).toEqual([
      { email: 'owner1@example.com', team: 'Sales' }, { email: 'owner2@example.com', team: 'Sales' }, { email: 'owner3@example.com', team: 'Sales' },
    ]);
    expect(await quarry.query('SELECT object_type, name, options[1].value AS first_option FROM raw_hubspot_setup.properties ORDER BY object_type')).toEqual([
      { object_type: 'contacts', name: 'email', first_option: null },
      { object_type: 'deals', name: 'dealstage', first_option: 'appointmentscheduled' },
    ]);
    expect(await quarry.query('SELECT label, len(stages) AS stages, stages[2].metadata.probability AS won FROM raw_hubspot_setup.pipelines_deal'))
      .toEqual([{ label: 'Sales Pipeline', stages: 2, won: '1.0' }]);
    expect(await quarry.query('SELECT label FROM raw_hubspot_setup.pipelines_ticket')).toEqual([{ label: 'Support Pipeline' }]);
  });

  it('asks the search endpoint for changes since the last sync and merges them on id', async () => {
    const contacts = hubspot.objects.contacts!;
    const renamed = { ...contact(10), updatedAt: at(500), properties: { ...contact(10).properties, firstname: 'Renamed', lastmodifieddate: at(500) } };
    contacts.splice(9, 1, renamed);
    contacts.push({ ...contact(252), updatedAt: at(501), properties: { ...contact(252).properties, lastmodifieddate: at(501) } });
    const before = api.requests.length;
    expect(await syncAndWait(quarry, 'hubspot')).toMatchObject({ type: 'sync_completed' });
    const searches = api.requests.slice(before).filter((request) => request.path === '/crm/v3/objects/contacts/search');
    expect(searches).toHaveLength(1);
    expect(searches[0]!.method).toBe('POST');
    expect(searches[0]!.body).toMatchObject({
      filterGroups: [{ filters: [{ propertyName: 'lastmodifieddate', operator: 'GTE', value: String(Date.parse(at(250))) }] }],
    });
    expect(api.requests.slice(before).some((request) => request.path === '/crm/v3/objects/contacts')).toBe(false);
    expect(await quarry.query("SELECT count(*) AS n, count(*) FILTER (WHERE properties.firstname = 'Renamed') AS renamed, count(DISTINCT id) AS ids FROM raw_hubspot.contacts"))
      .toEqual([{ n: 251, renamed: 1, ids: 251 }]);
    expect((await quarry.ctx.store.sourceState.forSource('hubspot')).get('contacts')).toBe(at(501));
  });

});
