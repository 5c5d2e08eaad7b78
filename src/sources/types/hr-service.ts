import { z } from 'zod';
import { offsetParam, requireEnv, restSourceConnector, valueAt, type AuthStrategy, type HttpClient, type RestResource } from '../rest/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { CalendarDate, EnvVarName, resourceList, genericConfig, defineSourceType } from '../type-definition/index.ts';

const RESOURCES = {
  default: ['employees', 'absences', 'attendances'],
  available: ['employees', 'absences', 'attendances', 'absence_types'],
} as const;

export const HrServiceConfig = genericConfig({
  client_id_env: EnvVarName.default('HR_SERVICE_CLIENT_ID'),
  client_secret_env: EnvVarName.default('HR_SERVICE_CLIENT_SECRET'),
  resources: resourceList(RESOURCES),
  /** The attendance and absence endpoints require a date range; it starts here (default 2000-01-01) and ends a year ahead. */
  start_date: CalendarDate.optional(),
});
export type HrServiceConfig = z.output<typeof HrServiceConfig>;
type HrServiceResource = HrServiceConfig['resources'][number];

const PERSONIO_API = 'https://api.personio.de/v1';
/** The largest page the API serves. */
const PAGE_SIZE = 200;
const DEFAULT_START_DATE = '2000-01-01';
const YEAR_MS = 365 * 86_400_000;

/**
 * Client credentials exchanged at `POST /auth` for a bearer token (`{success, data: {token}}`), asked
 * once per sync and again after a 401.
 */
function personioAuth(authUrl: URL, clientId: string, clientSecret: string, http: HttpClient): AuthStrategy {
  let token: string | undefined;
  return {
    async apply(request) {
      if (token === undefined) {
        const response = await http.request({ url: authUrl, method: 'POST', headers: {}, body: { client_id: clientId, client_secret: clientSecret } });
        const issued = valueAt(response.body, 'data.token');
        if (typeof issued !== 'string') throw new SyncFailedError(`POST ${authUrl.origin}${authUrl.pathname} returned no data.token`);
        token = issued;
      }
      request.headers.authorization = `Bearer ${token}`;
    },
    refresh() {
      const hadToken = token !== undefined;
      token = undefined;
      return hadToken;
    },
  };
}

/** Employee attributes come as `{label, value, type, universal_id}`; the table keeps the values. */
function employeeValues(record: Record<string, unknown>): Record<string, unknown> {
  const attributes = (valueAt(record, 'attributes') ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(attributes).map(([name, attribute]) => [name, valueAt(attribute, 'value') ?? null]));
}

/** Time-offs, attendances and types come as `{id?, type, attributes}` with plain attribute values. */
function plainAttributes(record: Record<string, unknown>): Record<string, unknown> {
  const attributes = (valueAt(record, 'attributes') ?? {}) as Record<string, unknown>;
  return record.id === undefined ? attributes : { id: record.id, ...attributes };
}

function pagedResource(name: HrServiceResource, path: string, extra: Partial<RestResource>): RestResource {
  return {
    name,
    path,
    params: { limit: PAGE_SIZE },
    dataSelector: 'data',
    paginator: offsetParam({ limit: PAGE_SIZE, total_path: 'metadata.total_elements' }),
    ...extra,
  };
}

function resourceOf(name: HrServiceResource, config: HrServiceConfig, now: Date): RestResource {
  const range = { start_date: config.start_date ?? DEFAULT_START_DATE, end_date: new Date(now.getTime() + YEAR_MS).toISOString().slice(0, 10) };
  switch (name) {
    case 'employees':
      return pagedResource(name, 'company/employees', {
        mapRecord: employeeValues, primaryKey: ['id'], incremental: { cursorPath: 'last_modified_at', param: 'updated_since' },
      });
    case 'absences':
      return pagedResource(name, 'company/time-offs', {
        params: { limit: PAGE_SIZE, ...range }, mapRecord: plainAttributes, primaryKey: ['id'],
        incremental: { cursorPath: 'updated_at', param: 'updated_from' },
      });
    case 'attendances':
      return pagedResource(name, 'company/attendances', {
        params: { limit: PAGE_SIZE, ...range }, mapRecord: plainAttributes, primaryKey: ['id'],
        incremental: { cursorPath: 'updated_at', param: 'updated_from' },
      });
    case 'absence_types':
      return pagedResource(name, 'company/time-off-types', { mapRecord: plainAttributes });
  }
}

/** `hr_service`: the Personio API v1, with a client id and secret exchanged for a token. */
const hrServiceConnector = restSourceConnector<HrServiceConfig>({
  baseUrl: () => PERSONIO_API,
  auth: (config, env, http) => personioAuth(
    new URL(`${(config.base_url ?? PERSONIO_API).replace(/\/$/, '')}/auth`),
    requireEnv(env, config.client_id_env, 'the Personio API client id'),
    requireEnv(env, config.client_secret_env, 'the Personio API client secret'),
    http,
  ),
  resources: (config, { now }) => config.resources.map((resource) => resourceOf(resource, config, now)),
});

export const hrServiceType = defineSourceType({
  key: 'hr_service', category: 'Other', authType: 'API Key', wizard: false, wizardDisabledReason: 'its API is enterprise-only', incremental: true,
  section: 'generic', schema: HrServiceConfig,
  resources: RESOURCES,
  connector: hrServiceConnector,
});
