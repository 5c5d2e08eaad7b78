import type { FastifyReply, FastifyRequest } from 'fastify';
import { basicOf, records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

type Item = Record<string, unknown> & { id: number };

export interface GreenhouseData {
  candidates: Item[];
  applications: Item[];
  jobs: Item[];
  offers: Item[];
  users: Item[];
  departments: Item[];
  offices: Item[];
}

export interface FakeGreenhouse {
  readonly api: FakeApi;
  readonly baseUrl: string;
  apiKey: string;
  data: GreenhouseData;
  close(): Promise<void>;
}

const EPOCH = Date.UTC(2024, 0, 1);
const DAY_MS = 86_400_000;

/** Greenhouse writes times with milliseconds. */
export const greenhouseTime = (ms: number): string => new Date(ms).toISOString();

export function greenhouseCandidate(n: number, updatedMs = EPOCH + n * 3_600_000): Item {
  return {
    id: 4000 + n, first_name: 'Candidate', last_name: String(n), company: n % 2 === 0 ? 'Initech' : null, title: 'Engineer', is_private: false,
    created_at: greenhouseTime(EPOCH + n * DAY_MS / 2), updated_at: greenhouseTime(updatedMs), last_activity: greenhouseTime(updatedMs),
    application_ids: [8000 + n], tags: n % 3 === 0 ? ['referral'] : [],
    email_addresses: [{ value: `candidate${String(n)}@example.com`, type: 'personal' }],
    phone_numbers: [{ value: `+1 555 01${String(n).padStart(2, '0')}`, type: 'mobile' }],
    recruiter: { id: 91, first_name: 'Rita', last_name: 'Recruiter', name: 'Rita Recruiter', employee_id: 'E91' },
    coordinator: null,
    applications: [{
      id: 8000 + n, candidate_id: 4000 + n, prospect: false, applied_at: greenhouseTime(EPOCH + n * DAY_MS / 2), status: 'active',
      jobs: [{ id: 70 + (n % 3), name: `Job ${String(n % 3)}` }], current_stage: { id: 5, name: 'Phone Screen' },
    }],
    custom_fields: { desired_salary: n % 2 === 0 ? '100000' : null },
    keyed_custom_fields: { desired_salary: n % 2 === 0 ? { name: 'Desired Salary', type: 'short_text', value: '100000' } : null },
  };
}

export function defaultGreenhouseData(): GreenhouseData {
  const at = greenhouseTime(EPOCH);
  return {
    candidates: records(1100, (n) => greenhouseCandidate(n)),
    applications: records(30, (n) => ({
      id: 8000 + n, candidate_id: 4000 + n, prospect: false, applied_at: greenhouseTime(EPOCH + n * DAY_MS), rejected_at: null,
      last_activity_at: greenhouseTime(EPOCH + n * DAY_MS + 1000), source: { id: 2, public_name: 'LinkedIn' }, status: 'active',
      jobs: [{ id: 70 + (n % 3), name: `Job ${String(n % 3)}` }], current_stage: { id: 5, name: 'Phone Screen' }, answers: [],
    })),
    jobs: records(3, (n) => ({
      id: 70 + n, name: `Job ${String(n)}`, requisition_id: `REQ-${String(n)}`, status: 'open', confidential: false,
      created_at: at, updated_at: greenhouseTime(EPOCH + n * 1000), opened_at: at, closed_at: null,
      departments: [{ id: 20, name: 'Engineering', parent_id: null }], offices: [{ id: 30, name: 'Berlin', location: { name: 'Berlin, Germany' } }],
      hiring_team: { hiring_managers: [{ id: 92, first_name: 'Hank', last_name: 'Manager', name: 'Hank Manager', responsible: false }], recruiters: [], coordinators: [], sourcers: [] },
      openings: [{ id: 600 + n, opening_id: `OPEN-${String(n)}`, status: 'open', opened_at: at, closed_at: null }],
    })),
    offers: records(4, (n) => ({
      id: 900 + n, version: 1, application_id: 8000 + n, job_id: 71, candidate_id: 4000 + n, status: n === 1 ? 'accepted' : 'unresolved',
      created_at: greenhouseTime(EPOCH + n * DAY_MS), updated_at: greenhouseTime(EPOCH + n * DAY_MS), sent_at: null, resolved_at: null, starts_at: '2024-06-01',
      opening: { id: 601, opening_id: 'OPEN-1', status: 'open' }, custom_fields: { salary: { amount: 100_000 + n, unit: 'EUR' } },
    })),
    users: records(2, (n) => ({
      id: 90 + n, name: `User ${String(n)}`, first_name: 'User', last_name: String(n), primary_email_address: `user${String(n)}@acme.example`,
      disabled: false, site_admin: n === 1, emails: [`user${String(n)}@acme.example`], employee_id: `E${String(90 + n)}`, linked_candidate_ids: [],
      created_at: at, updated_at: greenhouseTime(EPOCH + n * 1000),
    })),
    departments: [{ id: 20, name: 'Engineering', parent_id: null, child_ids: [21], external_id: null }, { id: 21, name: 'Data', parent_id: 20, child_ids: [], external_id: 'D-21' }],
    offices: [{ id: 30, name: 'Berlin', location: { name: 'Berlin, Germany' }, primary_contact_user_id: 91, parent_id: null, child_ids: [], external_id: null }],
  };
}

type Query = Record<string, string | undefined>;

const MAX_PER_PAGE = 500;
/** Filter parameter → the field it compares and the direction. */
const TIME_FILTERS: Readonly<Record<string, { field: string; after: boolean }>> = {
  created_after: { field: 'created_at', after: true },
  created_before: { field: 'created_at', after: false },
  updated_after: { field: 'updated_at', after: true },
  updated_before: { field: 'updated_at', after: false },
  last_activity_after: { field: 'last_activity_at', after: true },
};
/** Applications have no created_at: their creation filters compare applied_at. */
const CREATED_FIELD: Readonly<Record<string, string>> = { applications: 'applied_at' };
const FILTERS_OF: Readonly<Record<string, readonly string[]>> = {
  candidates: ['created_after', 'created_before', 'updated_after', 'updated_before'],
  applications: ['created_after', 'created_before', 'last_activity_after'],
  jobs: ['created_after', 'created_before', 'updated_after', 'updated_before'],
  offers: ['created_after', 'created_before', 'updated_after', 'updated_before'],
  users: ['created_after', 'created_before', 'updated_after', 'updated_before'],
  departments: [],
  offices: [],
};

/**
 * A Greenhouse Harvest API v1 on loopback: the API key as the Basic user with an empty password,
 * `per_page`/`page` with `Link` next and last links, and each endpoint's own timestamp filters.
 */
export async function startFakeGreenhouse(options: { apiKey: string }): Promise<FakeGreenhouse> {
  const state = { apiKey: options.apiKey, data: defaultGreenhouseData() };
  const authenticated = (request: FastifyRequest, reply: FastifyReply): boolean => {
    const credentials = basicOf(request);
    if (credentials?.user === state.apiKey && credentials.password === '') return true;
    void reply.code(401).send({ message: 'Invalid Basic Auth credentials' });
    return false;
  };

  const api = await startFakeApi((app) => {
    for (const [name, filters] of Object.entries(FILTERS_OF)) {
      app.get(`/v1/${name}`, (request, reply) => {
        if (!authenticated(request, reply)) return reply;
        const query = request.query as Query;
        const perPage = Math.min(Number(query.per_page ?? 100), MAX_PER_PAGE);
        const page = Number(query.page ?? 1);
        let items = state.data[name as keyof GreenhouseData];
        for (const filter of filters) {
          const bound = query[filter];
          if (bound === undefined) continue;
          if (Number.isNaN(Date.parse(bound))) return reply.code(422).send({ errors: [{ message: `${filter} must be an ISO-8601 timestamp`, field: filter }] });
          const rule = TIME_FILTERS[filter]!;
          const field = rule.field === 'created_at' ? CREATED_FIELD[name] ?? 'created_at' : rule.field;
          items = items.filter((item) => (rule.after ? Date.parse(String(item[field])) >= Date.parse(bound) : Date.parse(String(item[field])) <= Date.parse(bound)));
        }
        const lastPage = Math.max(1, Math.ceil(items.length / perPage));
        const link = (to: number): string => {
          const url = new URL(request.url, `http://${request.headers.host ?? ''}`);
          url.searchParams.set('page', String(to));
          return url.href;
        };
        const links = [...(page < lastPage ? [`<${link(page + 1)}>; rel="next"`] : []), `<${link(lastPage)}>; rel="last"`];
        void reply.header('link', links.join(','));
        return items.slice((page - 1) * perPage, page * perPage);
      });
    }
  });

  return {
    api,
    baseUrl: `${api.url}/v1`,
    get apiKey() { return state.apiKey; },
    set apiKey(value) { state.apiKey = value; },
    get data() { return state.data; },
    set data(value) { state.data = value; },
    close: () => api.close(),
  };
}

/** The default Harvest data, its 1,100 candidates read page by page. */
export const greenhouseContract: ContractVendor = {
  type: 'recruiting',
  async start() {
    const key = 'harvest-contract-key';
    const fake = await startFakeGreenhouse({ apiKey: key });
    return {
      api: fake.api, env: { RECRUITING_API_KEY: key }, pagedPath: '/v1/candidates', table: 'candidates', key: 'id',
      section: ['generic_config:', '  resources: [candidates]', `  base_url: "${fake.baseUrl}"`],
      revoke() {
        fake.apiKey = 'another-key';
        return () => { fake.apiKey = key; };
      },
      refusal: () => `GET ${fake.baseUrl}/candidates answered 401 Unauthorized: Invalid Basic Auth credentials`,
    };
  },
};
