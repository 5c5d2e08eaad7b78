import { z } from 'zod';
import { boundsInOrder, CalendarDate, EnvVarName, requiredUnless, resourceList } from './field-types.ts';
import { genericConfig } from './generic-config.ts';
import { defineSourceType } from '../source-type-definition.ts';

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

export const storefrontType = defineSourceType({
  key: 'storefront', category: 'E-commerce & Payment', authType: 'OAuth', wizard: false, wizardDisabledReason: 'needs an authorization-code OAuth provider command that does not exist yet', incremental: true,
  section: 'generic', schema: StorefrontConfig,
  resources: RESOURCES,
});
