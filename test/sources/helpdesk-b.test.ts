import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.ts';
import { parseSources } from '../../src/sources/config/index.ts';
import { freshdeskContact, freshdeskTicket, startFakeFreshdesk, type FakeFreshdesk } from '../fakes/freshdesk.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const API_KEY = 'freshdesk-api-key';

let freshdesk: FakeFreshdesk;
let quarry: TestQuarry;

beforeAll(async () => {
  freshdesk = await startFakeFreshdesk({ apiKey: API_KEY });
  quarry = await startQuarry({
    env: { HELPDESK_B_API_KEY: API_KEY },
    sourcesYaml: `sources:
  - name: desk
    type: helpdesk_b
    generic_config: {domain: acme, base_url: "${freshdesk.baseUrl}"}
`,
  });
});

afterAll(async () => {
  await quarry.close();
  await freshdesk.close();
});

function requestsTo(path: string, from = 0) {
  return freshdesk.api.requests.slice(from).filter((request) => request.path === `/api/v2/${path}`);
}

describe('helpdesk_b (Freshdesk)', () => {
  it('loads tickets, contacts, companies, agents and groups page by page with the API key as Basic user', async () => {
    expect(await syncAndWait(quarry, 'desk')).toMatchObject({ type: 'sync_completed', rows: 250 + 120 + 3 + 3 + 2 });
    const counts = await quarry.query(`SELECT
      (SELECT count(*) FROM raw_desk.tickets) AS tickets, (SELECT count(*) FROM raw_desk.contacts) AS contacts,
      (SELECT count(*) FROM raw_desk.companies) AS companies, (SELECT count(*) FROM raw_desk.agents) AS agents,
      (SELECT count(*) FROM raw_desk.groups) AS groups`);
    expect(counts).toEqual([{ tickets: 250, contacts: 120, companies: 3, agents: 3, groups: 2 }]);
    const ticket = await quarry.query(`SELECT subject, custom_fields.cf_order_number AS order_number, custom_fields.cf_refund AS refund,
      tags[2] AS tag, len(cc_emails) AS cc FROM raw_desk.tickets WHERE id = 6`);
    expect(ticket).toEqual([{ subject: 'Order 6 is late', order_number: 'SO-10006', refund: true, tag: 'vip', cc: 1 }]);
    expect(await quarry.query("SELECT contact.job_title AS title FROM raw_desk.agents WHERE contact.email = 'agent1@acme.example'")).toEqual([{ title: 'Lead' }]);

    const tickets = requestsTo('tickets');
    expect(tickets.map((request) => request.query.get('page'))).toEqual([null, '2', '3']);
    expect(Object.fromEntries(tickets[0]!.query)).toEqual({
      per_page: '100', order_by: 'updated_at', order_type: 'asc', updated_since: '1970-01-01T00:00:00Z',
    });
    expect(requestsTo('contacts')[0]?.query.get('_updated_since')).toBe('1970-01-01T00:00:00Z');
  });

  it('asks only for tickets and contacts updated since the last sync and merges them', async () => {
    const lastTicketUpdate = freshdesk.data.tickets.map((ticket) => ticket.updated_at).sort().at(-1)!;
    const now = Date.now();
    freshdesk.data.tickets[4] = { ...freshdeskTicket(5, now), status: 5 };
    freshdesk.data.tickets.push(freshdeskTicket(251, now + 1000));
    freshdesk.data.contacts[0] = { ...freshdeskContact(1, now), name: 'Customer One' };
    const before = freshdesk.api.requests.length;

    expect(await syncAndWait(quarry, 'desk')).toMatchObject({ type: 'sync_completed' });
    expect(requestsTo('tickets', before)[0]?.query.get('updated_since')).toBe(lastTicketUpdate);
    expect(requestsTo('contacts', before)[0]?.query.get('_updated_since')).toBe(freshdeskContact(120).updated_at);
    const tickets = await quarry.query('SELECT count(*) AS n, count(DISTINCT id) AS ids, any_value(status) FILTER (WHERE id = 5) AS status FROM raw_desk.tickets');
    expect(tickets).toEqual([{ n: 251, ids: 251, status: 5 }]);
    expect(await quarry.query('SELECT count(*) AS n FROM raw_desk.contacts WHERE name = \'Customer One\'')).toEqual([{ n: 1 }]);
    expect(await quarry.query('SELECT count(*) AS n FROM raw_desk.contacts')).toEqual([{ n: 120 }]);
  });

  it('refuses a config without domain or with a bad key variable, naming the field', () => {
    let caught: unknown;
    try {
      parseSources(`sources:
  - name: desk
    type: helpdesk_b
    generic_config: {api_key_env: FRESHDESK_KEY}
  - name: other
    type: helpdesk_b
    generic_config: {domain: "acme.freshdesk.com", resources: [tickets, conversations]}
`);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).problems).toEqual([
      'sources.yml: sources[0].generic_config.domain: required unless base_url is set',
      'sources.yml: sources[1].generic_config.domain: "acme.freshdesk.com" is not a subdomain: use letters, digits and inner hyphens',
      'sources.yml: sources[1].generic_config.resources[1]: expected one of tickets, contacts, companies, agents, groups, ticket_fields, got "conversations"',
    ]);
  });
});
