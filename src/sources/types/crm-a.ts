import { z } from 'zod';
import { bearerAuth, bodyCursor, cursorParam, requireEnv, restSourceConnector, type HttpRequest, type Paginator, type RestResource } from '../rest/index.ts';
import { EnvVarName, HttpUrl, resourceList, defineSourceType } from '../type-definition/index.ts';

const RESOURCES = {
  default: ['contacts', 'companies', 'deals', 'tickets'],
  available: [
    'contacts', 'companies', 'deals', 'tickets', 'products', 'quotes', 'owners', 'properties',
    'pipelines_deal', 'pipelines_ticket',
  ],
} as const;

export const CrmASection = z.strictObject({
  api_key_env: EnvVarName.default('CRM_A_API_KEY'),
  resources: resourceList(RESOURCES),
  base_url: HttpUrl.optional(),
});
export type CrmASection = z.output<typeof CrmASection>;

/** CRM objects read from `/crm/v3/objects/{object}`, with the property that dates their last change. */
const OBJECTS = {
  contacts: 'lastmodifieddate',
  companies: 'hs_lastmodifieddate',
  deals: 'hs_lastmodifieddate',
  tickets: 'hs_lastmodifieddate',
  products: 'hs_lastmodifieddate',
  quotes: 'hs_lastmodifieddate',
} as const;
type CrmObject = keyof typeof OBJECTS;

const PAGE_SIZE = 100;

function isCrmObject(resource: string): resource is CrmObject {
  return Object.hasOwn(OBJECTS, resource);
}

/** List pages carry `after` in the query; search pages carry it in the POST body. */
const afterCursor: Paginator = {
  next(request, response, records) {
    const paginator = request.method === 'POST' ? bodyCursor('paging.next.after', 'after') : cursorParam('paging.next.after', 'after');
    return paginator.next(request, response, records);
  },
};

/** A re-sync asks the search endpoint for what changed since the cursor, oldest change first. */
function searchChangedSince(object: CrmObject) {
  return (request: HttpRequest, since: string | number): void => {
    const millis = typeof since === 'number' ? since : Date.parse(since);
    request.method = 'POST';
    request.url = new URL(`${request.url.pathname}/search`, request.url);
    request.body = {
      filterGroups: [{ filters: [{ propertyName: OBJECTS[object], operator: 'GTE', value: String(millis) }] }],
      sorts: [{ propertyName: OBJECTS[object], direction: 'ASCENDING' }],
      limit: PAGE_SIZE,
    };
  };
}

function objectResource(object: CrmObject): RestResource {
  return {
    name: object,
    path: `/crm/v3/objects/${object}`,
    params: { limit: PAGE_SIZE, archived: false },
    dataSelector: 'results',
    paginator: afterCursor,
    primaryKey: ['id'],
    incremental: { cursorPath: 'updatedAt', apply: searchChangedSince(object) },
  };
}

/** The definitions of every object's properties, in one table keyed by object type. */
function propertyResources(): RestResource[] {
  return Object.keys(OBJECTS).map((object) => ({
    name: 'properties',
    path: `/crm/v3/properties/${object}`,
    dataSelector: 'results',
    paginator: { type: 'single_page' },
    mapRecord: (record) => ({ object_type: object, ...record }),
  }));
}

function resourcesOf(name: CrmASection['resources'][number]): RestResource[] {
  if (isCrmObject(name)) return [objectResource(name)];
  switch (name) {
    case 'owners':
      return [{ name, path: '/crm/v3/owners', params: { limit: PAGE_SIZE }, dataSelector: 'results', paginator: afterCursor }];
    case 'properties':
      return propertyResources();
    case 'pipelines_deal':
    case 'pipelines_ticket':
      return [{
        name, path: `/crm/v3/pipelines/${name === 'pipelines_deal' ? 'deals' : 'tickets'}`, dataSelector: 'results', paginator: { type: 'single_page' },
      }];
  }
}

/** `crm_a`: HubSpot's CRM API v3, read with a private app's access token. */
const crmAConnector = restSourceConnector<CrmASection>({
  baseUrl: () => 'https://api.hubapi.com',
  auth: (section, env) => bearerAuth(requireEnv(env, section.api_key_env, 'a HubSpot private app access token')),
  resources: (section) => section.resources.flatMap(resourcesOf),
});

export const crmAType = defineSourceType({
  key: 'crm_a', category: 'Business & CRM', authType: 'API Key', wizard: true, incremental: true,
  section: 'own', schema: CrmASection,
  resources: RESOURCES,
  connector: crmAConnector,
});
