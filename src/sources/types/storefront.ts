import { z } from 'zod';
import type { DateWindow } from '../date-window.ts';
import { dateRangeOf, headerAuth, headerLink, requireEnv, restSourceConnector, type RestResource } from '../rest/index.ts';
import { boundsInOrder, CalendarDate, EnvVarName, requiredUnless, resourceList, genericConfig, defineSourceType } from '../type-definition/index.ts';

const RESOURCES = {
  default: ['orders', 'customers', 'products'],
  available: ['orders', 'customers', 'products', 'custom_collections', 'smart_collections', 'locations'],
} as const;

/** The shop's handle (`acme`) or its myshopify domain (`acme.myshopify.com`): it becomes the API's host. */
const Shop = z.string().regex(/^[a-z0-9][a-z0-9-]*(\.myshopify\.com)?$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a shop: use its handle (acme) or myshopify domain (acme.myshopify.com)`,
});

export const StorefrontConfig = genericConfig({
  shop: Shop.optional(),
  /** A custom app's Admin API access token (`shpat_...`). */
  access_token_env: EnvVarName.default('STOREFRONT_ACCESS_TOKEN'),
  /** Shopify's quarterly API versions, `YYYY-01|04|07|10`. */
  api_version: z.string().regex(/^\d{4}-(01|04|07|10)$/, { error: (issue) => `expected an API version like 2025-07, got ${JSON.stringify(issue.input)}` })
    .default('2025-07'),
  resources: resourceList(RESOURCES),
  /** Orders, customers and products created on or after this day. */
  start_date: CalendarDate.optional(),
  end_date: CalendarDate.optional(),
  /** Records per page, at most Shopify's 250. */
  page_size: z.int().min(1).max(250).default(250),
})
  .refine(...requiredUnless('shop', 'base_url'))
  .refine(...boundsInOrder('start_date', 'end_date'));
export type StorefrontConfig = z.output<typeof StorefrontConfig>;
type StorefrontResource = StorefrontConfig['resources'][number];

/** Which list endpoints filter by creation and by change time, and the extra parameters each needs. */
const ENDPOINTS: Readonly<Record<StorefrontResource, { created: boolean; updated: boolean; params?: Record<string, string> }>> = {
  // Without status=any, Shopify lists only open orders.
  orders: { created: true, updated: true, params: { status: 'any' } },
  customers: { created: true, updated: true },
  products: { created: true, updated: true },
  custom_collections: { created: false, updated: true },
  smart_collections: { created: false, updated: true },
  locations: { created: false, updated: false },
};

/** `acme` and `acme.myshopify.com` both name https://acme.myshopify.com. */
function shopRoot(config: StorefrontConfig): string {
  const shop = config.shop ?? '';
  return `https://${shop.endsWith('.myshopify.com') ? shop : `${shop}.myshopify.com`}`;
}

function endpointResource(config: StorefrontConfig, name: StorefrontResource, window: DateWindow | undefined): RestResource {
  const endpoint = ENDPOINTS[name];
  const { startDate, endDate } = dateRangeOf(config, window);
  const params: Record<string, string | number> = { ...endpoint.params };
  if (name !== 'locations') params.limit = config.page_size;
  if (endpoint.created && startDate !== undefined) params.created_at_min = `${startDate}T00:00:00Z`;
  if (endpoint.created && endDate !== undefined) params.created_at_max = `${endDate}T23:59:59Z`;
  return {
    name,
    path: `/admin/api/${config.api_version}/${name}.json`,
    params,
    dataSelector: name,
    // The Link header's next URL carries only limit and page_info: Shopify refuses filters beside a page_info.
    paginator: headerLink,
    ...(endpoint.updated ? { primaryKey: ['id'], incremental: { cursorPath: 'updated_at', param: 'updated_at_min' } } : {}),
  };
}

/** `storefront`: Shopify Admin REST API of one shop, with a custom app's access token. */
const storefrontConnector = restSourceConnector<StorefrontConfig>({
  baseUrl: shopRoot,
  auth: (config, env) => headerAuth('X-Shopify-Access-Token', requireEnv(env, config.access_token_env, "a Shopify custom app's Admin API access token")),
  // A backfill reads the resources Shopify filters by creation date; the others have no window to re-load.
  resources: (config, { window }) => config.resources
    .filter((name) => window === undefined || ENDPOINTS[name].created)
    .map((name) => endpointResource(config, name, window)),
});

export const storefrontType = defineSourceType({
  key: 'storefront', category: 'E-commerce & Payment', authType: 'OAuth', wizard: false, wizardDisabledReason: 'needs an authorization-code OAuth provider command that does not exist yet', incremental: true,
  section: 'generic', schema: StorefrontConfig,
  resources: RESOURCES,
  connector: storefrontConnector,
});
