import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerOf, records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

type Attribute = { label: string; value: unknown; type: string; universal_id: string | null };
export interface PersonioEmployee { type: 'Employee'; attributes: Record<string, Attribute> }
export interface PersonioPeriod { id?: number; type: string; attributes: Record<string, unknown> & { updated_at?: string } }

export interface PersonioData {
  employees: PersonioEmployee[];
  timeOffs: PersonioPeriod[];
  attendances: PersonioPeriod[];
  timeOffTypes: PersonioPeriod[];
}

export interface FakePersonio {
  readonly api: FakeApi;
  readonly baseUrl: string;
  clientSecret: string;
  data: PersonioData;
  close(): Promise<void>;
}

const EPOCH = Date.UTC(2024, 0, 1);

/** Personio writes times with the company's zone offset. */
export const personioTime = (ms: number): string => new Date(ms + 3_600_000).toISOString().replace(/\.\d{3}Z$/, '+01:00');

const attribute = (label: string, value: unknown, type = 'standard', universalId: string | null = null): Attribute => ({ label, value, type, universal_id: universalId });

export function personioEmployee(n: number, modifiedMs = EPOCH + n * 3_600_000): PersonioEmployee {
  return {
    type: 'Employee',
    attributes: {
      id: attribute('ID', n, 'integer', 'id'),
      first_name: attribute('First name', 'Employee', 'standard', 'first_name'),
      last_name: attribute('Last name', String(n), 'standard', 'last_name'),
      email: attribute('Email', `employee${String(n)}@acme.example`, 'standard', 'email'),
      status: attribute('Status', n % 10 === 0 ? 'inactive' : 'active', 'standard', 'status'),
      weekly_working_hours: attribute('Weekly hours', n % 3 === 0 ? '20' : '40', 'standard', 'weekly_working_hours'),
      department: attribute('Department', { type: 'Department', attributes: { id: 3 + (n % 2), name: n % 2 === 0 ? 'Engineering' : 'Sales' } }, 'standard', 'department'),
      supervisor: attribute('Supervisor', n === 1 ? null : { type: 'Employee', attributes: { id: attribute('ID', 1, 'integer', 'id') } }, 'standard', 'supervisor'),
      dynamic_1146702: attribute('Shirt size', n % 2 === 0 ? 'M' : 'L', 'list'),
      last_modified_at: attribute('Last modified', personioTime(modifiedMs), 'date', 'last_modified_at'),
    },
  };
}

export function defaultPersonioData(): PersonioData {
  return {
    employees: records(450, (n) => personioEmployee(n)),
    timeOffs: records(25, (n) => ({
      type: 'TimeOffPeriod',
      attributes: {
        id: 500 + n, status: 'approved', start_date: '2024-03-04T00:00:00+01:00', end_date: '2024-03-08T00:00:00+01:00', days_count: 5,
        half_day_start: 0, half_day_end: 0, time_off_type: { type: 'TimeOffType', attributes: { id: 1, name: 'Paid vacation', category: 'paid_vacation' } },
        employee: { type: 'Employee', attributes: { id: attribute('ID', n, 'integer', 'id'), email: attribute('Email', `employee${String(n)}@acme.example`) } },
        certificate: { status: 'not-required' }, created_at: personioTime(EPOCH), updated_at: personioTime(EPOCH + n * 60_000),
      },
    })),
    attendances: records(40, (n) => ({
      id: 9000 + n, type: 'AttendancePeriod',
      attributes: {
        employee: (n % 20) + 1, date: '2024-02-01', start_time: '09:00', end_time: '17:30', break: 30, comment: n % 2 === 0 ? 'On site' : '',
        updated_at: personioTime(EPOCH + n * 60_000), status: 'confirmed', project: n % 4 === 0 ? { id: 7, type: 'Project', attributes: { name: 'Launch' } } : null,
        is_holiday: false, is_on_time_off: false,
      },
    })),
    timeOffTypes: [{ type: 'TimeOffType', attributes: { id: 1, name: 'Paid vacation', category: 'paid_vacation' } }],
  };
}

type Query = Record<string, string | undefined>;

const MAX_LIMIT = 200;

/**
 * A Personio API v1 on loopback: client credentials exchanged at `POST /v1/auth` for a bearer token,
 * `{success, metadata, data}` pages by `limit`/`offset`, employees with `{label, value}` attributes
 * and `updated_since`, time-offs and attendances that require a `start_date`/`end_date` range and
 * take `updated_from`.
 */
export async function startFakePersonio(options: { clientId: string; clientSecret: string }): Promise<FakePersonio> {
  const state = { clientSecret: options.clientSecret, data: defaultPersonioData() };
  const tokens = new Set<string>();
  const authenticated = (request: FastifyRequest, reply: FastifyReply): boolean => {
    const token = bearerOf(request);
    if (token !== undefined && tokens.has(token)) return true;
    void reply.code(401).send({ success: false, error: { code: 0, message: 'The access token is invalid' } });
    return false;
  };
  const page = (query: Query, items: unknown[]) => {
    const limit = Math.min(Number(query.limit ?? MAX_LIMIT), MAX_LIMIT);
    const offset = Number(query.offset ?? 0);
    return {
      success: true,
      metadata: { total_elements: items.length, current_page: Math.floor(offset / limit), total_pages: Math.ceil(items.length / limit) },
      offset, limit,
      data: items.slice(offset, offset + limit),
    };
  };
  const updatedFrom = (items: PersonioPeriod[], since: string | undefined) =>
    since === undefined ? items : items.filter((item) => Date.parse(String(item.attributes.updated_at)) >= Date.parse(since));
  const rangeProblem = (query: Query): string | undefined =>
    (query.start_date === undefined || query.end_date === undefined ? 'start_date and end_date are required' : undefined);

  const api = await startFakeApi((app) => {
    app.post('/v1/auth', (request, reply) => {
      const body = (request.body ?? {}) as Record<string, string | undefined>;
      if (body.client_id !== options.clientId || body.client_secret !== state.clientSecret) {
        return reply.code(401).send({ success: false, error: { code: 0, message: 'Wrong credentials' } });
      }
      const token = randomUUID();
      tokens.add(token);
      return { success: true, data: { token, expires_in: 86_400 } };
    });
    app.get('/v1/company/employees', (request, reply) => {
      if (!authenticated(request, reply)) return reply;
      const query = request.query as Query;
      const since = query.updated_since;
      const employees = since === undefined ? state.data.employees
        : state.data.employees.filter((employee) => Date.parse(String(employee.attributes.last_modified_at?.value)) >= Date.parse(since));
      return page(query, employees);
    });
    app.get('/v1/company/time-offs', (request, reply) => {
      if (!authenticated(request, reply)) return reply;
      const query = request.query as Query;
      const problem = rangeProblem(query);
      if (problem !== undefined) return reply.code(422).send({ success: false, error: { code: 422, message: problem } });
      return page(query, updatedFrom(state.data.timeOffs, query.updated_from));
    });
    app.get('/v1/company/attendances', (request, reply) => {
      if (!authenticated(request, reply)) return reply;
      const query = request.query as Query;
      const problem = rangeProblem(query);
      if (problem !== undefined) return reply.code(422).send({ success: false, error: { code: 422, message: problem } });
      return page(query, updatedFrom(state.data.attendances, query.updated_from));
    });
    app.get('/v1/company/time-off-types', (request, reply) => (authenticated(request, reply) ? page(request.query as Query, state.data.timeOffTypes) : reply));
  });

  return {
    api,
    baseUrl: `${api.url}/v1`,
    get clientSecret() { return state.clientSecret; },
    set clientSecret(value) { state.clientSecret = value; },
    get data() { return state.data; },
    set data(value) { state.data = value; },
    close: () => api.close(),
  };
}

/** The default company, its 450 employees read page by page with a token the client credentials buy. */
export const personioContract: ContractVendor = {
  type: 'hr_service',
  async start() {
    const secret = 'papi-contract-secret';
    const fake = await startFakePersonio({ clientId: 'papi-contract-client', clientSecret: secret });
    return {
      api: fake.api, env: { HR_SERVICE_CLIENT_ID: 'papi-contract-client', HR_SERVICE_CLIENT_SECRET: secret },
      pagedPath: '/v1/company/employees', table: 'employees', key: 'id',
      section: ['generic_config:', '  resources: [employees]', '  start_date: 2024-01-01', `  base_url: "${fake.baseUrl}"`],
      revoke() {
        fake.clientSecret = 'rotated-secret';
        return () => { fake.clientSecret = secret; };
      },
      refusal: () => `POST ${fake.baseUrl}/auth answered 401 Unauthorized: Wrong credentials`,
    };
  },
};
