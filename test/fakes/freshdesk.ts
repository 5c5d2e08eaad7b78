import type { FastifyReply, FastifyRequest } from 'fastify';
import { basicOf, records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

export interface FreshdeskTicket {
  id: number;
  subject: string;
  status: number;
  priority: number;
  source: number;
  type: string | null;
  requester_id: number;
  responder_id: number | null;
  group_id: number | null;
  company_id: number | null;
  tags: string[];
  cc_emails: string[];
  custom_fields: { cf_order_number: string | null; cf_refund: boolean };
  fr_escalated: boolean;
  spam: boolean;
  due_by: string;
  created_at: string;
  updated_at: string;
}

export interface FreshdeskContact {
  id: number;
  name: string;
  email: string;
  company_id: number | null;
  active: boolean;
  tags: string[];
  other_emails: string[];
  custom_fields: Record<string, string | null>;
  created_at: string;
  updated_at: string;
}

export interface FreshdeskData {
  tickets: FreshdeskTicket[];
  contacts: FreshdeskContact[];
  companies: { id: number; name: string; domains: string[]; custom_fields: Record<string, string | null>; created_at: string; updated_at: string }[];
  agents: { id: number; available: boolean; occasional: boolean; ticket_scope: number; contact: { name: string; email: string; job_title: string | null }; created_at: string; updated_at: string }[];
  groups: { id: number; name: string; agent_ids: number[]; created_at: string; updated_at: string }[];
}

export interface FakeFreshdesk {
  readonly api: FakeApi;
  readonly baseUrl: string;
  /** The key the account accepts; changing it regenerates the key under a running source. */
  apiKey: string;
  data: FreshdeskData;
  close(): Promise<void>;
}

const EPOCH = Date.UTC(2024, 0, 1);
const DAY_MS = 86_400_000;

export function freshdeskTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function freshdeskTicket(n: number, updatedMs = EPOCH + n * 3_600_000): FreshdeskTicket {
  return {
    id: n, subject: `Order ${String(n)} is late`, status: 2 + (n % 4), priority: 1 + (n % 4), source: n % 2 === 0 ? 1 : 2,
    type: n % 3 === 0 ? 'Question' : null, requester_id: 7000 + (n % 40), responder_id: n % 5 === 0 ? null : 100 + (n % 3),
    group_id: 50 + (n % 2), company_id: n % 4 === 0 ? null : 300 + (n % 4), tags: n % 2 === 0 ? ['late', 'vip'] : [],
    cc_emails: n % 3 === 0 ? [`cc${String(n)}@example.com`] : [],
    custom_fields: { cf_order_number: `SO-${String(10_000 + n)}`, cf_refund: n % 2 === 0 },
    fr_escalated: false, spam: false, due_by: freshdeskTime(updatedMs + 3 * DAY_MS),
    created_at: freshdeskTime(updatedMs - DAY_MS), updated_at: freshdeskTime(updatedMs),
  };
}

export function freshdeskContact(n: number, updatedMs = EPOCH + n * 60_000): FreshdeskContact {
  return {
    id: 7000 + n, name: `Customer ${String(n)}`, email: `customer${String(n)}@example.com`, company_id: n % 4 === 0 ? null : 300 + (n % 4),
    active: n % 9 !== 0, tags: [], other_emails: n % 2 === 0 ? [`alt${String(n)}@example.com`] : [], custom_fields: { loyalty_tier: n % 2 === 0 ? 'gold' : null },
    created_at: freshdeskTime(updatedMs - DAY_MS), updated_at: freshdeskTime(updatedMs),
  };
}

/** Tickets spread over a year, so the default 30-day window of the ticket list matters. */
export function defaultFreshdeskData(now: number): FreshdeskData {
  const created = freshdeskTime(EPOCH);
  return {
    tickets: records(250, (n) => freshdeskTicket(n, n > 240 ? now - n * 60_000 : EPOCH + n * DAY_MS)),
    contacts: records(120, (n) => freshdeskContact(n)),
    companies: records(3, (n) => ({ id: 300 + n, name: `Company ${String(n)}`, domains: [`company${String(n)}.example`], custom_fields: { plan: 'pro' }, created_at: created, updated_at: created })),
    agents: records(3, (n) => ({
      id: 100 + n, available: true, occasional: n === 3, ticket_scope: 1,
      contact: { name: `Agent ${String(n)}`, email: `agent${String(n)}@acme.example`, job_title: n === 1 ? 'Lead' : null }, created_at: created, updated_at: created,
    })),
    groups: records(2, (n) => ({ id: 50 + n, name: n === 1 ? 'Billing' : 'Shipping', agent_ids: [101, 100 + n], created_at: created, updated_at: created })),
  };
}

type Query = Record<string, string | undefined>;

const MAX_PER_PAGE = 100;

/**
 * A Freshdesk API v2 on loopback: the API key as Basic user with any password, `page`/`per_page`
 * with a `Link: <…>; rel="next"` header, `updated_since` on tickets (which otherwise lists only
 * tickets created in the last 30 days) and `_updated_since` on contacts.
 */
export async function startFakeFreshdesk(options: { apiKey: string; data?: FreshdeskData }): Promise<FakeFreshdesk> {
  const state = { apiKey: options.apiKey, data: options.data ?? defaultFreshdeskData(Date.now()) };
  const authenticated = (request: FastifyRequest, reply: FastifyReply): boolean => {
    if (basicOf(request)?.user === state.apiKey) return true;
    void reply.code(401).send({ code: 'invalid_credentials', message: 'You have to be logged in to perform this action.' });
    return false;
  };
  const paged = <Item>(request: FastifyRequest, reply: FastifyReply, items: Item[]): Item[] | FastifyReply => {
    const query = request.query as Query;
    const perPage = Number(query.per_page ?? 30);
    const page = Number(query.page ?? 1);
    if (perPage > MAX_PER_PAGE) {
      return reply.code(400).send({ description: 'Validation failed', errors: [{ field: 'per_page', message: 'Has to be less than or equal to 100', code: 'invalid_value' }] });
    }
    if (page * perPage < items.length) {
      const next = new URL(request.url, `http://${request.headers.host ?? ''}`);
      next.searchParams.set('page', String(page + 1));
      void reply.header('link', `<${next.href}>; rel="next"`);
    }
    return items.slice((page - 1) * perPage, page * perPage);
  };
  const updatedSince = <Item extends { updated_at: string }>(items: Item[], since: string | undefined): Item[] =>
    since === undefined ? items : items.filter((item) => Date.parse(item.updated_at) >= Date.parse(since));

  const api = await startFakeApi((app) => {
    app.get('/api/v2/tickets', (request, reply) => {
      if (!authenticated(request, reply)) return reply;
      const query = request.query as Query;
      let tickets = query.updated_since === undefined
        ? state.data.tickets.filter((ticket) => Date.parse(ticket.created_at) >= Date.now() - 30 * DAY_MS)
        : updatedSince(state.data.tickets, query.updated_since);
      const field = query.order_by ?? 'created_at';
      if (field !== 'created_at' && field !== 'updated_at' && field !== 'due_by' && field !== 'status') {
        return reply.code(400).send({ description: 'Validation failed', errors: [{ field: 'order_by', message: 'It should be one of these values: \'created_at,due_by,updated_at,status\'', code: 'invalid_value' }] });
      }
      const direction = query.order_type === 'asc' ? 1 : -1;
      tickets = [...tickets].sort((a, b) => direction * (String(a[field]) < String(b[field]) ? -1 : String(a[field]) > String(b[field]) ? 1 : a.id - b.id));
      return paged(request, reply, tickets);
    });
    app.get('/api/v2/contacts', (request, reply) => {
      if (!authenticated(request, reply)) return reply;
      return paged(request, reply, updatedSince(state.data.contacts, (request.query as Query)._updated_since));
    });
    const list = (name: string, items: () => unknown[]): void => {
      app.get(`/api/v2/${name}`, (request, reply) => (authenticated(request, reply) ? paged(request, reply, items()) : reply));
    };
    list('companies', () => state.data.companies);
    list('agents', () => state.data.agents);
    list('groups', () => state.data.groups);
  });

  return {
    api,
    baseUrl: `${api.url}/api/v2`,
    get apiKey() { return state.apiKey; },
    set apiKey(value) { state.apiKey = value; },
    get data() { return state.data; },
    set data(value) { state.data = value; },
    close: () => api.close(),
  };
}

/** The default helpdesk, its 250 tickets read 100 a page. */
export const freshdeskContract: ContractVendor = {
  type: 'helpdesk_b',
  async start() {
    const key = 'freshdesk-contract-key';
    const fake = await startFakeFreshdesk({ apiKey: key });
    return {
      api: fake.api, env: { HELPDESK_B_API_KEY: key }, pagedPath: '/api/v2/tickets', table: 'tickets', key: 'id',
      section: ['generic_config:', '  domain: acme', '  resources: [tickets]', `  base_url: "${fake.baseUrl}"`],
      revoke() {
        fake.apiKey = 'regenerated-key';
        return () => { fake.apiKey = key; };
      },
      refusal: () => `GET ${fake.baseUrl}/tickets answered 401 Unauthorized: You have to be logged in to perform this action.`,
    };
  },
};
