import { z } from 'zod';
import { basicAuth, headerLink, requireEnv, restSourceConnector, type RestResource } from '../rest/index.ts';
import { EnvVarName, requiredUnless, resourceList, Subdomain, genericConfig, defineSourceType } from '../type-definition/index.ts';

const RESOURCES = {
  default: ['tickets', 'contacts', 'companies', 'agents', 'groups'],
  available: ['tickets', 'contacts', 'companies', 'agents', 'groups', 'ticket_fields'],
} as const;

export const HelpdeskBConfig = genericConfig({
  /** The account's helpdesk domain: `acme` for acme.freshdesk.com. */
  domain: Subdomain.optional(),
  api_key_env: EnvVarName.default('HELPDESK_B_API_KEY'),
  resources: resourceList(RESOURCES),
}).refine(...requiredUnless('domain', 'base_url'));
export type HelpdeskBConfig = z.output<typeof HelpdeskBConfig>;
type HelpdeskBResource = HelpdeskBConfig['resources'][number];

const PAGE_SIZE = 100;
/** The ticket list returns only tickets created in the last 30 days unless given `updated_since`; a first sync asks for all. */
const BEGINNING = '1970-01-01T00:00:00Z';

function listResource(name: HelpdeskBResource, extra: Partial<RestResource> = {}): RestResource {
  return { name, path: name, params: { per_page: PAGE_SIZE }, paginator: headerLink, ...extra };
}

const RESOURCE_REQUESTS: Readonly<Record<HelpdeskBResource, RestResource>> = {
  tickets: listResource('tickets', {
    params: { per_page: PAGE_SIZE, order_by: 'updated_at', order_type: 'asc' },
    primaryKey: ['id'],
    incremental: { cursorPath: 'updated_at', param: 'updated_since', initialValue: BEGINNING },
  }),
  contacts: listResource('contacts', {
    primaryKey: ['id'],
    incremental: { cursorPath: 'updated_at', param: '_updated_since', initialValue: BEGINNING },
  }),
  companies: listResource('companies'),
  agents: listResource('agents'),
  groups: listResource('groups'),
  ticket_fields: { name: 'ticket_fields', path: 'ticket_fields' },
};

/** `helpdesk_b`: the Freshdesk API v2, with the API key as the Basic user name and `X` as the password. */
const helpdeskBConnector = restSourceConnector<HelpdeskBConfig>({
  baseUrl: (config) => `https://${config.domain ?? ''}.freshdesk.com/api/v2`,
  auth: (config, env) => basicAuth(requireEnv(env, config.api_key_env, 'a Freshdesk API key'), 'X'),
  resources: (config) => config.resources.map((resource) => RESOURCE_REQUESTS[resource]),
});

export const helpdeskBType = defineSourceType({
  key: 'helpdesk_b', category: 'Business & CRM', authType: 'API Key', wizard: true, incremental: true,
  section: 'generic', schema: HelpdeskBConfig,
  resources: RESOURCES,
  connector: helpdeskBConnector,
});
