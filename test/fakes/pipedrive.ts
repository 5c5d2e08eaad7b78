import type { FastifyReply, FastifyRequest } from 'fastify';
import { records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

/** A custom field's key, as Pipedrive names them: a 40-character hash. */
export const DEAL_SOURCE_FIELD = 'dcf558aac1ae4e8c4f849ba5e668430d8df9be12';

type Entity = Record<string, unknown> & { id: number; update_time: string };

export interface PipedriveData {
  deals: Entity[];
  persons: Entity[];
  organizations: Entity[];
  activities: Entity[];
  products: Entity[];
  pipelines: Record<string, unknown>[];
  stages: Record<string, unknown>[];
  users: Record<string, unknown>[];
}

export interface FakePipedrive {
  readonly api: FakeApi;
  readonly baseUrl: string;
  apiToken: string;
  data: PipedriveData;
  close(): Promise<void>;
}

const EPOCH = Date.UTC(2024, 0, 1);

/** Pipedrive writes UTC times as `YYYY-MM-DD HH:MM:SS`. */
export function pipedriveTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

const owner = (n: number) => ({ id: 10 + (n % 2), name: n % 2 === 0 ? 'Ann Owner' : 'Bo Owner', email: `owner${String(n % 2)}@acme.example`, has_pic: 0, active_flag: true, value: 10 + (n % 2) });

export function pipedriveDeal(n: number, updatedMs = EPOCH + n * 3_600_000): Entity {
  return {
    id: n, title: `Deal ${String(n)}`, value: n * 100, currency: 'EUR', status: n % 7 === 0 ? 'won' : 'open', stage_id: 1 + (n % 3), pipeline_id: 1,
    user_id: owner(n),
    person_id: { name: `Person ${String(n % 40)}`, email: [{ label: 'work', value: `person${String(n % 40)}@example.com`, primary: true }], phone: [], value: n % 40 },
    org_id: n % 5 === 0 ? null : { name: `Org ${String(n % 10)}`, people_count: 3, owner_id: 10, address: null, cc_email: 'org@acme.pipedrivemail.com', value: n % 10 },
    [DEAL_SOURCE_FIELD]: n % 2 === 0 ? 'Webinar' : null,
    add_time: pipedriveTime(EPOCH - 86_400_000 + n * 1000), update_time: pipedriveTime(updatedMs),
  };
}

export function defaultPipedriveData(): PipedriveData {
  return {
    deals: records(1200, (n) => pipedriveDeal(n)),
    persons: records(40, (n) => ({
      id: n, name: `Person ${String(n)}`, first_name: 'Person', last_name: String(n), owner_id: owner(n),
      email: [{ label: 'work', value: `person${String(n)}@example.com`, primary: true }, { label: 'home', value: `p${String(n)}@home.example`, primary: false }],
      phone: [{ label: 'mobile', value: `+4930${String(n)}`, primary: true }], add_time: pipedriveTime(EPOCH), update_time: pipedriveTime(EPOCH + n * 60_000),
    })),
    organizations: records(10, (n) => ({ id: n, name: `Org ${String(n)}`, owner_id: owner(n), address: `${String(n)} Main St`, add_time: pipedriveTime(EPOCH), update_time: pipedriveTime(EPOCH + n * 60_000) })),
    activities: records(30, (n) => ({
      id: n, subject: `Call ${String(n)}`, type: 'call', done: n % 2 === 0, deal_id: n, person_id: n % 40, due_date: '2024-02-01', due_time: '10:00',
      participants: [{ person_id: n % 40, primary_flag: true }], add_time: pipedriveTime(EPOCH), update_time: pipedriveTime(EPOCH + n * 60_000),
    })),
    products: records(5, (n) => ({ id: n, name: `Product ${String(n)}`, code: `P-${String(n)}`, prices: [{ currency: 'EUR', price: n * 10 }], add_time: pipedriveTime(EPOCH), update_time: pipedriveTime(EPOCH + n * 60_000) })),
    pipelines: [{ id: 1, name: 'Sales', url_title: 'sales', order_nr: 1, active: true, deal_probability: true, add_time: pipedriveTime(EPOCH), update_time: pipedriveTime(EPOCH) }],
    stages: records(3, (n) => ({ id: n, order_nr: n, name: ['Qualified', 'Proposal', 'Negotiation'][n - 1], pipeline_id: 1, deal_probability: 20 * n, rotten_flag: false, add_time: pipedriveTime(EPOCH) })),
    users: records(2, (n) => ({ id: 9 + n, name: `User ${String(n)}`, email: `user${String(n)}@acme.example`, is_admin: n === 1 ? 1 : 0, role_id: 1, active_flag: true, timezone_name: 'Europe/Berlin' })),
  };
}

type Query = Record<string, string | undefined>;

const MAX_LIMIT = 500;
const RECENT_TYPES = { deal: 'deals', person: 'persons', organization: 'organizations', activity: 'activities', product: 'products' } as const;

/**
 * A Pipedrive API v1 on loopback: `api_token` in the query, `{success, data, additional_data}`
 * envelopes paged by `start`/`limit` with `more_items_in_collection`/`next_start`, and `/recents`
 * listing what changed since `since_timestamp`, wrapped as `{item, id, data}`.
 */
export async function startFakePipedrive(options: { apiToken: string }): Promise<FakePipedrive> {
  const state = { apiToken: options.apiToken, data: defaultPipedriveData() };
  const authenticated = (request: FastifyRequest, reply: FastifyReply): boolean => {
    if ((request.query as Query).api_token === state.apiToken) return true;
    void reply.code(401).send({
      success: false, error: 'unauthorized access', errorCode: 401,
      error_info: 'Please check developers.pipedrive.com for more information about Pipedrive API.',
    });
    return false;
  };
  const page = <Item>(query: Query, items: Item[], describe: (slice: Item[]) => Record<string, unknown> = () => ({})) => {
    const start = Number(query.start ?? 0);
    const limit = Math.min(Number(query.limit ?? 100), MAX_LIMIT);
    const slice = items.slice(start, start + limit);
    const more = start + limit < items.length;
    return {
      success: true,
      data: slice.length === 0 ? null : slice,
      additional_data: { ...describe(slice), pagination: { start, limit, more_items_in_collection: more, ...(more ? { next_start: start + limit } : {}) } },
    };
  };

  const api = await startFakeApi((app) => {
    app.get('/api/v1/recents', (request, reply) => {
      if (!authenticated(request, reply)) return reply;
      const query = request.query as Query;
      const since = query.since_timestamp;
      if (since === undefined || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(since)) {
        return reply.code(400).send({ success: false, error: 'Parameter since_timestamp is required and must be YYYY-MM-DD HH:MM:SS', errorCode: 400 });
      }
      const types = (query.items ?? Object.keys(RECENT_TYPES).join(',')).split(',') as (keyof typeof RECENT_TYPES)[];
      const changed = types.flatMap((type) => state.data[RECENT_TYPES[type]]
        .filter((entity) => entity.update_time >= since)
        .map((entity) => ({ item: type, id: entity.id, data: entity })))
        .sort((a, b) => a.data.update_time.localeCompare(b.data.update_time) || a.id - b.id);
      return page(query, changed, (slice) => ({ since_timestamp: since, last_timestamp_on_page: slice.at(-1)?.data.update_time ?? since }));
    });
    for (const name of ['deals', 'persons', 'organizations', 'activities', 'products', 'pipelines', 'stages', 'users'] as const) {
      app.get(`/api/v1/${name}`, (request, reply) => (authenticated(request, reply) ? page(request.query as Query, state.data[name]) : reply));
    }
  });

  return {
    api,
    baseUrl: `${api.url}/api/v1`,
    get apiToken() { return state.apiToken; },
    set apiToken(value) { state.apiToken = value; },
    get data() { return state.data; },
    set data(value) { state.data = value; },
    close: () => api.close(),
  };
}

/** The default company data, its deals read through /recents page by page. */
export const pipedriveContract: ContractVendor = {
  type: 'crm_c',
  async start() {
    const token = 'pipedrive-contract-token';
    const fake = await startFakePipedrive({ apiToken: token });
    return {
      api: fake.api, env: { CRM_C_API_TOKEN: token }, pagedPath: '/api/v1/recents', table: 'deals', key: 'id',
      section: ['generic_config:', '  company_domain: acme', `  base_url: "${fake.baseUrl}"`],
      revoke() {
        fake.apiToken = 'a-new-token';
        return () => { fake.apiToken = token; };
      },
      refusal: () => `GET ${fake.baseUrl}/recents answered 401 Unauthorized: unauthorized access`,
    };
  },
};
