import { z } from 'zod';
import { queryAuth, requireEnv, restSourceConnector, valueAt, withParam, type HttpRequest, type Paginator, type RestResource } from '../rest/index.ts';
import { EnvVarName, resourceList, Subdomain, genericConfig, defineSourceType } from '../type-definition/index.ts';

const RESOURCES = {
  default: ['deals', 'persons', 'organizations', 'activities', 'pipelines', 'stages', 'users'],
  available: ['deals', 'persons', 'organizations', 'activities', 'pipelines', 'stages', 'users', 'products'],
} as const;

export const CrmCConfig = genericConfig({
  /** The company's own API host (`acme` for acme.pipedrive.com); the shared api.pipedrive.com when absent. */
  company_domain: Subdomain.optional(),
  api_token_env: EnvVarName.default('CRM_C_API_TOKEN'),
  resources: resourceList(RESOURCES),
});
export type CrmCConfig = z.output<typeof CrmCConfig>;
type CrmCResource = CrmCConfig['resources'][number];

/** The largest page the API serves. */
const PAGE_SIZE = 500;
const BEGINNING = '1970-01-01 00:00:00';

/** `start` moves to `additional_data.pagination.next_start` while `more_items_in_collection`. */
const nextStart: Paginator = {
  next(request, response) {
    const pagination = valueAt(response.body, 'additional_data.pagination');
    if (valueAt(pagination, 'more_items_in_collection') !== true) return undefined;
    const start = valueAt(pagination, 'next_start');
    return typeof start === 'number' ? withParam(request, 'start', start) : undefined;
  },
};

/** The API writes UTC times as `YYYY-MM-DD HH:MM:SS`; a cursor moved back by lookback_days comes as ISO text. */
function pipedriveTime(value: string | number): string {
  const text = String(value);
  return text.includes('T') ? new Date(text).toISOString().slice(0, 19).replace('T', ' ') : text;
}

/** Entities whose changes `/recents` lists: every record with its `update_time`, wrapped as `{item, id, data}`. */
const RECENT_ITEMS = { deals: 'deal', persons: 'person', organizations: 'organization', activities: 'activity', products: 'product' } as const;

function recentResource(name: keyof typeof RECENT_ITEMS): RestResource {
  return {
    name,
    path: 'recents',
    params: { items: RECENT_ITEMS[name], limit: PAGE_SIZE },
    dataSelector: 'data',
    mapRecord: (record) => (valueAt(record, 'data') ?? {}) as Record<string, unknown>,
    paginator: nextStart,
    primaryKey: ['id'],
    incremental: {
      cursorPath: 'update_time',
      initialValue: BEGINNING,
      apply: (request: HttpRequest, since) => { request.url.searchParams.set('since_timestamp', pipedriveTime(since)); },
    },
  };
}

function listResource(name: CrmCResource): RestResource {
  return { name, path: name, params: { limit: PAGE_SIZE }, dataSelector: 'data', paginator: nextStart };
}

const RESOURCE_REQUESTS: Readonly<Record<CrmCResource, RestResource>> = {
  deals: recentResource('deals'),
  persons: recentResource('persons'),
  organizations: recentResource('organizations'),
  activities: recentResource('activities'),
  products: recentResource('products'),
  pipelines: listResource('pipelines'),
  stages: listResource('stages'),
  users: listResource('users'),
};

/** `crm_c`: the Pipedrive API v1, with the API token as the `api_token` query parameter. */
const crmCConnector = restSourceConnector<CrmCConfig>({
  baseUrl: (config) => (config.company_domain === undefined ? 'https://api.pipedrive.com/v1' : `https://${config.company_domain}.pipedrive.com/api/v1`),
  auth: (config, env) => queryAuth('api_token', requireEnv(env, config.api_token_env, 'a Pipedrive API token')),
  resources: (config) => config.resources.map((resource) => RESOURCE_REQUESTS[resource]),
});

export const crmCType = defineSourceType({
  key: 'crm_c', category: 'Business & CRM', authType: 'API Key', wizard: true, incremental: true,
  section: 'generic', schema: CrmCConfig,
  resources: RESOURCES,
  connector: crmCConnector,
});
