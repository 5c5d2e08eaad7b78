import { z } from 'zod';
import { EnvVarName, HttpUrl, resourceList } from './field-types.ts';
import { ReportDate, ReportTableName } from './report-fields.ts';
import { defineSourceType } from '../source-type-definition.ts';

const RESOURCES = {
  default: ['campaign_stats', 'ad_group_stats', 'keyword_stats', 'ad_stats', 'search_term_stats'],
  available: ['campaign_stats', 'ad_group_stats', 'keyword_stats', 'ad_stats', 'search_term_stats'],
} as const;

/** A customer id as the Ads UI shows it (`123-456-7890`) or as the API takes it (`1234567890`). */
const CustomerId = z.preprocess(
  (value) => (typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value),
  z.string().regex(/^\d{3}-?\d{3}-?\d{4}$/, { error: (issue) => `expected a customer id like 123-456-7890, got ${JSON.stringify(issue.input)}` }),
);

/** A custom query: its own table and its GAQL text, where `{start_date}` and `{end_date}` are replaced by the range. */
const CustomQuery = z.strictObject({
  name: ReportTableName,
  query: z.string().regex(/^\s*SELECT\s.+\sFROM\s+[a-z_]+/is, { error: 'expected a GAQL query: SELECT <fields> FROM <resource> ...' }),
});

export const SearchAdsSection = z.strictObject({
  /** The ads customer id. */
  property_id: CustomerId,
  credentials_env: EnvVarName.default('ANALYTICS_CREDENTIALS'),
  developer_token_env: EnvVarName.default('SEARCH_ADS_DEVELOPER_TOKEN'),
  /** The manager account the credentials reach the customer through, when they do. */
  login_customer_id: CustomerId.optional(),
  start_date: ReportDate.default('30daysAgo'),
  end_date: ReportDate.default('today'),
  resources: resourceList(RESOURCES),
  queries: z.array(CustomQuery).default(() => []),
  api_version: z.string().regex(/^v\d+$/, { error: 'expected an API version like v21' }).default('v21'),
  base_url: HttpUrl.optional(),
});
export type SearchAdsSection = z.output<typeof SearchAdsSection>;

export const searchAdsType = defineSourceType({
  key: 'search_ads', category: 'Marketing & Analytics', authType: 'OAuth', wizard: true, incremental: false,
  section: 'own', schema: SearchAdsSection,
  resources: RESOURCES,
});
