import type { FastifyReply, FastifyRequest } from 'fastify';
import { basicOf, records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

/** A ticket as the incremental export returns it (a subset of Zendesk's fields, nested ones included). */
export interface ZendeskTicket {
  url: string;
  id: number;
  subject: string;
  status: 'new' | 'open' | 'pending' | 'solved' | 'closed';
  priority: 'low' | 'normal' | 'high' | 'urgent' | null;
  requester_id: number;
  assignee_id: number | null;
  tags: string[];
  via: { channel: string; source: { from: { address?: string }; to: Record<string, never>; rel: string | null } };
  custom_fields: { id: number; value: string | null }[];
  created_at: string;
  updated_at: string;
  generated_timestamp: number;
}

export interface ZendeskTicketEvent {
  id: number;
  ticket_id: number;
  timestamp: number;
  created_at: string;
  updater_id: number;
  event_type: string;
  child_events: { id: number; event_type: string; previous_value?: string; status?: string }[];
}

export interface ZendeskTicketMetricEvent {
  id: number;
  ticket_id: number;
  metric: string;
  instance_id: number;
  type: string;
  time: string;
}

export interface ZendeskData {
  tickets: ZendeskTicket[];
  ticketFields: { id: number; type: string; title: string; active: boolean; custom_field_options?: { name: string; value: string }[] }[];
  ticketEvents: ZendeskTicketEvent[];
  ticketMetricEvents: ZendeskTicketMetricEvent[];
}

export interface FakeZendesk {
  readonly api: FakeApi;
  /** The API root a source's `base_url` points at. */
  readonly baseUrl: string;
  /** The API token the fake accepts; a test may change it to revoke the one a source holds. */
  token: string;
  data: ZendeskData;
  close(): Promise<void>;
}

const DAY_MS = 86_400_000;
const EPOCH = Date.UTC(2024, 0, 1);

/** Zendesk writes times without milliseconds. */
export function zendeskTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function zendeskTicket(n: number, updatedMs = EPOCH + n * 3_600_000): ZendeskTicket {
  return {
    url: `https://acme.zendesk.com/api/v2/tickets/${String(n)}.json`,
    id: n,
    subject: `Ticket ${String(n)}`,
    status: (['new', 'open', 'pending', 'solved', 'closed'] as const)[n % 5]!,
    priority: n % 4 === 0 ? null : (['low', 'normal', 'high'] as const)[n % 3]!,
    requester_id: 1000 + (n % 17),
    assignee_id: n % 3 === 0 ? null : 500 + (n % 3),
    tags: n % 2 === 0 ? ['billing', 'vip'] : ['shipping'],
    via: { channel: n % 2 === 0 ? 'email' : 'web', source: { from: n % 2 === 0 ? { address: `customer${String(n)}@example.com` } : {}, to: {}, rel: null } },
    custom_fields: [{ id: 360001, value: n % 2 === 0 ? 'refund' : null }],
    created_at: zendeskTime(EPOCH - DAY_MS + n * 60_000),
    updated_at: zendeskTime(updatedMs),
    generated_timestamp: Math.floor(updatedMs / 1000),
  };
}

export function defaultZendeskData(): ZendeskData {
  return {
    tickets: records(2300, (n) => zendeskTicket(n)),
    ticketFields: records(130, (n) => ({
      id: 360000 + n, type: n === 1 ? 'tagger' : 'text', title: `Field ${String(n)}`, active: n % 10 !== 0,
      ...(n === 1 ? { custom_field_options: [{ name: 'Refund', value: 'refund' }, { name: 'Exchange', value: 'exchange' }] } : {}),
    })),
    ticketEvents: records(1500, (n) => ({
      id: 9000 + n, ticket_id: (n % 50) + 1, timestamp: Math.floor((EPOCH + n * 600_000) / 1000), created_at: zendeskTime(EPOCH + n * 600_000),
      updater_id: 500 + (n % 3), event_type: 'Audit',
      child_events: [{ id: 90000 + n, event_type: 'Change', previous_value: 'open', status: 'pending' }],
    })),
    ticketMetricEvents: records(40, (n) => ({
      id: 7000 + n, ticket_id: n, metric: n % 2 === 0 ? 'reply_time' : 'agent_work_time', instance_id: 1,
      type: n % 3 === 0 ? 'fulfill' : 'activate', time: zendeskTime(EPOCH + n * 3_600_000),
    })),
  };
}

type Query = Record<string, string | undefined>;

const MAX_EXPORT_PAGE = 1000;

/**
 * A Zendesk Support API on loopback, for `{email}/token` Basic credentials: the cursor-based ticket
 * export, the time-based ticket event and metric event exports, and the cursor-paginated ticket fields.
 */
export async function startFakeZendesk(options: { email: string; token: string; data?: ZendeskData }): Promise<FakeZendesk> {
  const state = { token: options.token, data: options.data ?? defaultZendeskData() };
  const authenticated = (request: FastifyRequest, reply: FastifyReply): boolean => {
    const credentials = basicOf(request);
    if (credentials?.user === `${options.email}/token` && credentials.password === state.token) return true;
    void reply.code(401).send({ error: "Couldn't authenticate you" });
    return false;
  };
  const origin = (request: FastifyRequest): string => `http://${request.headers.host ?? ''}/api/v2`;
  const pageSize = (query: Query): number => Math.min(Number(query.per_page ?? MAX_EXPORT_PAGE), MAX_EXPORT_PAGE);
  const startTimeProblem = (query: Query): string | undefined => {
    const start = Number(query.start_time);
    if (query.start_time === undefined || !Number.isInteger(start)) return 'start_time is required';
    return start * 1000 > Date.now() - 60_000 ? 'start_time must be more than one minute in the past' : undefined;
  };

  const api = await startFakeApi((app) => {
    app.get('/api/v2/incremental/tickets/cursor.json', (request, reply) => {
      if (!authenticated(request, reply)) return reply;
      const query = request.query as Query;
      // The cursor encodes the position (update time, id) after which the next page starts.
      let after: { time: number; id: number };
      if (query.cursor !== undefined) {
        after = JSON.parse(Buffer.from(query.cursor, 'base64url').toString()) as { time: number; id: number };
      } else {
        const problem = startTimeProblem(query);
        if (problem !== undefined) return reply.code(400).send({ error: 'InvalidValue', description: problem });
        after = { time: Number(query.start_time) - 1, id: Number.MAX_SAFE_INTEGER };
      }
      const ordered = [...state.data.tickets].sort((a, b) => a.generated_timestamp - b.generated_timestamp || a.id - b.id);
      const rest = ordered.filter((ticket) => ticket.generated_timestamp > after.time || (ticket.generated_timestamp === after.time && ticket.id > after.id));
      const page = rest.slice(0, pageSize(query));
      const last = page.at(-1);
      const cursor = Buffer.from(JSON.stringify(last === undefined ? after : { time: last.generated_timestamp, id: last.id })).toString('base64url');
      return {
        tickets: page,
        after_url: `${origin(request)}/incremental/tickets/cursor.json?cursor=${cursor}`,
        after_cursor: cursor,
        before_url: null,
        before_cursor: null,
        end_of_stream: page.length === rest.length,
      };
    });

    const timeBasedExport = <Item>(path: string, key: string, items: () => Item[], timeOf: (item: Item) => number): void => {
      app.get(`/api/v2/incremental/${path}.json`, (request, reply) => {
        if (!authenticated(request, reply)) return reply;
        const query = request.query as Query;
        const problem = startTimeProblem(query);
        if (problem !== undefined) return reply.code(400).send({ error: 'InvalidValue', description: problem });
        const since = Number(query.start_time);
        const matching = items().filter((item) => timeOf(item) >= since).sort((a, b) => timeOf(a) - timeOf(b));
        const page = matching.slice(0, pageSize(query));
        const endTime = page.length === 0 ? since : timeOf(page.at(-1)!);
        return {
          [key]: page,
          next_page: `${origin(request)}/incremental/${path}.json?start_time=${String(endTime)}&per_page=${String(pageSize(query))}`,
          count: page.length,
          end_time: endTime,
          end_of_stream: page.length === matching.length,
        };
      });
    };
    timeBasedExport('ticket_events', 'ticket_events', () => state.data.ticketEvents, (event) => event.timestamp);
    timeBasedExport('ticket_metric_events', 'ticket_metric_events', () => state.data.ticketMetricEvents, (event) => Date.parse(event.time) / 1000);

    app.get('/api/v2/ticket_fields.json', (request, reply) => {
      if (!authenticated(request, reply)) return reply;
      const query = request.query as Query;
      const size = Math.min(Number(query['page[size]'] ?? 100), 100);
      const start = query['page[after]'] === undefined ? 0 : Number(Buffer.from(query['page[after]'], 'base64url').toString());
      const page = state.data.ticketFields.slice(start, start + size);
      const hasMore = start + size < state.data.ticketFields.length;
      const after = Buffer.from(String(start + size)).toString('base64url');
      return {
        ticket_fields: page,
        meta: { has_more: hasMore, after_cursor: hasMore ? after : null, before_cursor: null },
        links: { next: hasMore ? `${origin(request)}/ticket_fields.json?page[after]=${after}&page[size]=${String(size)}` : null, prev: null },
      };
    });
  });

  return {
    api,
    baseUrl: `${api.url}/api/v2`,
    get token() { return state.token; },
    set token(value) { state.token = value; },
    get data() { return state.data; },
    set data(value) { state.data = value; },
    close: () => api.close(),
  };
}

/** The default account, its 2,300 tickets exported 1,000 a page. */
export const zendeskContract: ContractVendor = {
  type: 'helpdesk_a',
  async start() {
    const token = 'zendesk-contract-token';
    const fake = await startFakeZendesk({ email: 'ops@acme.example', token });
    return {
      api: fake.api, env: { HELPDESK_A_API_TOKEN: token }, pagedPath: '/api/v2/incremental/tickets', table: 'tickets', key: 'id',
      section: ['generic_config:', '  subdomain: acme', '  email: ops@acme.example', '  resources: [tickets]', `  base_url: ${fake.baseUrl}`],
      revoke() {
        fake.token = 'a-rotated-token';
        return () => { fake.token = token; };
      },
      refusal: () => `GET ${fake.baseUrl}/incremental/tickets/cursor.json answered 401 Unauthorized: Couldn't authenticate you`,
    };
  },
};
