import type { SourceConfigOf } from '../../config/index.ts';
import type { DateWindow } from '../backfill.ts';
import { dateRangeOf, headerAuth, headerLink, requireEnv, restSourceConnector, type RestResource } from '../rest/index.ts';

type StorefrontConfig = SourceConfigOf<'storefront'>['generic_config'];
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
export const storefrontConnector = restSourceConnector<StorefrontConfig>({
  baseUrl: shopRoot,
  auth: (config, env) => headerAuth('X-Shopify-Access-Token', requireEnv(env, config.access_token_env, "a Shopify custom app's Admin API access token")),
  // A backfill reads the resources Shopify filters by creation date; the others have no window to re-load.
  resources: (config, { window }) => config.resources
    .filter((name) => window === undefined || ENDPOINTS[name].created)
    .map((name) => endpointResource(config, name, window)),
});
