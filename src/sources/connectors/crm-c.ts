import type { SourceConfigOf } from '../../config/index.ts';
import {
  queryAuth, requireEnv, restSourceConnector, valueAt, withParam, type HttpRequest, type Paginator, type RestResource,
} from '../rest/index.ts';

type CrmCConfig = SourceConfigOf<'crm_c'>['generic_config'];
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

const RESOURCES: Readonly<Record<CrmCResource, RestResource>> = {
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
export const crmCConnector = restSourceConnector<CrmCConfig>({
  baseUrl: (config) => (config.company_domain === undefined ? 'https://api.pipedrive.com/v1' : `https://${config.company_domain}.pipedrive.com/api/v1`),
  auth: (config, env) => queryAuth('api_token', requireEnv(env, config.api_token_env, 'a Pipedrive API token')),
  resources: (config) => config.resources.map((resource) => RESOURCES[resource]),
});
