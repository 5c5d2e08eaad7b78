import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.ts';
import { parseSources } from '../../src/sources/config/index.ts';
import { defaultZendeskData, startFakeZendesk, zendeskTicket, type FakeZendesk } from '../fakes/zendesk.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const EMAIL = 'ops@acme.example';
const TOKEN = 'zendesk-api-token';

let zendesk: FakeZendesk;
let quarry: TestQuarry;

beforeAll(async () => {
  zendesk = await startFakeZendesk({ email: EMAIL, token: TOKEN });
  quarry = await startQuarry({
    env: { HELPDESK_A_API_TOKEN: TOKEN },
    sourcesYaml: `sources:
  - name: support
    type: helpdesk_a
    generic_config:
      subdomain: acme
      email: ${EMAIL}
      base_url: ${zendesk.baseUrl}
      resources: [tickets, ticket_fields, ticket_events, ticket_metric_events]
  - name: support_january
    type: helpdesk_a
    generic_config: {subdomain: acme, email: ${EMAIL}, base_url: ${zendesk.baseUrl}, resources: [tickets], start_date: 2024-01-02, end_date: 2024-01-10}
`,
  });
});

afterAll(async () => {
  await quarry.close();
  await zendesk.close();
});

function requestsTo(path: string, from = 0) {
  return zendesk.api.requests.slice(from).filter((request) => request.path === `/api/v2/${path}`);
}

describe('helpdesk_a (Zendesk Support)', () => {
  it('exports every resource with {email}/token credentials, following the cursor and time-based exports', async () => {
    const end = await syncAndWait(quarry, 'support');
    expect(end).toMatchObject({ type: 'sync_completed' });
    const counts = await quarry.query(`SELECT
      (SELECT count(*) FROM raw_support.tickets) AS tickets,
      (SELECT count(*) FROM raw_support.ticket_fields) AS fields,
      (SELECT count(DISTINCT id) FROM raw_support.ticket_events) AS events,
      (SELECT count(*) FROM raw_support.ticket_events) AS event_rows,
      (SELECT count(*) FROM raw_support.ticket_metric_events) AS metric_events`);
    expect(counts).toEqual([{ tickets: 2300, fields: 130, events: 1500, event_rows: 1500, metric_events: 40 }]);
    const ticket = await quarry.query(`SELECT subject, status, via.channel AS channel, via.source."from".address AS address,
      tags[2] AS tag, custom_fields[1].value AS reason FROM raw_support.tickets WHERE id = 2`);
    expect(ticket).toEqual([{ subject: 'Ticket 2', status: 'pending', channel: 'email', address: 'customer2@example.com', tag: 'vip', reason: 'refund' }]);
    const options = await quarry.query('SELECT custom_field_options[2].name AS name FROM raw_support.ticket_fields WHERE id = 360001');
    expect(options).toEqual([{ name: 'Exchange' }]);
    const change = await quarry.query('SELECT child_events[1].status AS status FROM raw_support.ticket_events WHERE id = 9001');
    expect(change).toEqual([{ status: 'pending' }]);

    const tickets = requestsTo('incremental/tickets/cursor.json');
    expect(tickets.map((request) => [request.query.get('start_time'), request.query.has('cursor')])).toEqual([['0', false], [null, true], [null, true]]);
    expect(tickets[0]?.query.get('per_page')).toBe('1000');
    expect(requestsTo('ticket_fields.json').map((request) => request.query.has('page[after]'))).toEqual([false, true]);
    expect(requestsTo('incremental/ticket_events.json')).toHaveLength(2);
  });

  it('re-syncs from the saved update time and merges changed tickets', async () => {
    const before = zendesk.api.requests.length;
    const changedAt = Date.UTC(2024, 6, 1);
    zendesk.data.tickets[9] = { ...zendeskTicket(10, changedAt), subject: 'Refund still missing', status: 'open' };
    zendesk.data.tickets.push(zendeskTicket(2301, changedAt + 60_000));
    const lastUpdate = Date.parse(zendeskTicket(2300).updated_at) / 1000;

    expect(await syncAndWait(quarry, 'support')).toMatchObject({ type: 'sync_completed' });
    expect(requestsTo('incremental/tickets/cursor.json', before)[0]?.query.get('start_time')).toBe(String(lastUpdate));
    const lastEvent = zendesk.data.ticketEvents.at(-1)!.timestamp;
    expect(requestsTo('incremental/ticket_events.json', before)[0]?.query.get('start_time')).toBe(String(lastEvent));
    const rows = await quarry.query(`SELECT count(*) AS n, count(DISTINCT id) AS ids,
      any_value(subject) FILTER (WHERE id = 10) AS subject FROM raw_support.tickets`);
    expect(rows).toEqual([{ n: 2301, ids: 2301, subject: 'Refund still missing' }]);
    expect((await quarry.ctx.store.sourceState.forSource('support')).get('tickets')).toBe(zendeskTicket(2301, changedAt + 60_000).updated_at);
  });

  it('starts the export at start_date and leaves out what changed after end_date', async () => {
    zendesk.data = defaultZendeskData();
    const before = zendesk.api.requests.length;
    expect(await syncAndWait(quarry, 'support_january')).toMatchObject({ type: 'sync_completed', rows: 216 });
    expect(requestsTo('incremental/tickets/cursor.json', before)[0]?.query.get('start_time')).toBe(String(Date.UTC(2024, 0, 2) / 1000));
    const range = await quarry.query(`SELECT strftime(min(updated_at), '%Y-%m-%dT%H:%M:%SZ') AS first,
      strftime(max(updated_at), '%Y-%m-%dT%H:%M:%SZ') AS last FROM raw_support_january.tickets`);
    expect(range).toEqual([{ first: '2024-01-02T00:00:00Z', last: '2024-01-10T23:00:00Z' }]);
  });

  it('refuses a config without subdomain, without email or with a backwards range, naming the field', () => {
    let caught: unknown;
    try {
      parseSources(`sources:
  - name: support
    type: helpdesk_a
    generic_config: {email: ops@acme.example}
  - name: desk
    type: helpdesk_a
    generic_config: {subdomain: acme, api_token_env: zendesk-token}
  - name: range
    type: helpdesk_a
    generic_config: {subdomain: acme, email: ops@acme.example, start_date: 2024-03-01, end_date: 2024-02-01}
  - name: anonymous
    type: helpdesk_a
    generic_config: {subdomain: acme}
`);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).problems).toEqual([
      'sources.yml: sources[0].generic_config.subdomain: required unless base_url is set',
      'sources.yml: sources[1].generic_config.api_token_env: "zendesk-token" is not an environment variable name: use capital letters, digits and underscores, not starting with a digit',
      'sources.yml: sources[1].generic_config.email: required: the email of the agent the API token belongs to',
      'sources.yml: sources[2].generic_config.end_date: must not be before start_date',
      'sources.yml: sources[3].generic_config.email: required: the email of the agent the API token belongs to',
    ]);
  });
});
