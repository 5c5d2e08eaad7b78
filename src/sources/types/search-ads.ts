import { z } from 'zod';
import type { DateWindow } from '../date-window.ts';
import type { Connector } from '../connector.ts';
import { bodyCursor, dateRangeOf, requireEnv, restSourceConnector, type AuthStrategy, type RestResource } from '../rest/index.ts';
import { EnvVarName, HttpUrl, resourceList, ReportDate, ReportTableName, defineSourceType } from '../type-definition/index.ts';
import { googleAuth } from './google-credentials.ts';
import { resolveReportDate } from './report-dates.ts';
import { snakeCaseKeys } from './snake-case.ts';

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
type Report = SearchAdsSection['resources'][number];

const GOOGLE_ADS_API = 'https://googleads.googleapis.com';
const SCOPE = 'https://www.googleapis.com/auth/adwords';
const METRICS = 'metrics.impressions, metrics.clicks, metrics.cost_micros, metrics.conversions, metrics.conversions_value, metrics.ctr, metrics.average_cpc';

/** The five statistics reports, in Google Ads Query Language; `{start_date}`/`{end_date}` are filled in. */
const REPORT_QUERIES: Readonly<Record<Report, string>> = {
  campaign_stats: `SELECT campaign.id, campaign.name, campaign.status, campaign.advertising_channel_type, segments.date, ${METRICS}
    FROM campaign WHERE segments.date BETWEEN '{start_date}' AND '{end_date}'`,
  ad_group_stats: `SELECT campaign.id, ad_group.id, ad_group.name, ad_group.status, ad_group.type, segments.date, ${METRICS}
    FROM ad_group WHERE segments.date BETWEEN '{start_date}' AND '{end_date}'`,
  keyword_stats: `SELECT campaign.id, ad_group.id, ad_group_criterion.criterion_id, ad_group_criterion.keyword.text,
    ad_group_criterion.keyword.match_type, ad_group_criterion.status, segments.date, ${METRICS}
    FROM keyword_view WHERE segments.date BETWEEN '{start_date}' AND '{end_date}'`,
  ad_stats: `SELECT campaign.id, ad_group.id, ad_group_ad.ad.id, ad_group_ad.ad.name, ad_group_ad.ad.type, ad_group_ad.ad.final_urls,
    ad_group_ad.status, segments.date, ${METRICS}
    FROM ad_group_ad WHERE segments.date BETWEEN '{start_date}' AND '{end_date}'`,
  search_term_stats: `SELECT campaign.id, ad_group.id, search_term_view.search_term, search_term_view.status, segments.date, ${METRICS}
    FROM search_term_view WHERE segments.date BETWEEN '{start_date}' AND '{end_date}'`,
};

/** Customer ids go into paths and headers without the dashes the UI shows. */
function digitsOf(customerId: string): string {
  return customerId.replaceAll('-', '');
}

/** Google credentials plus the account's developer token, and the manager account when access goes through one. */
function adsAuth(google: AuthStrategy, developerToken: string, loginCustomerId: string | undefined): AuthStrategy {
  return {
    async apply(request) {
      await google.apply(request);
      request.headers['developer-token'] = developerToken;
      if (loginCustomerId !== undefined) request.headers['login-customer-id'] = digitsOf(loginCustomerId);
    },
    refresh: google.refresh?.bind(google),
  };
}

function queryResource(name: string, query: string, section: SearchAdsSection, now: Date, window: DateWindow | undefined): RestResource {
  const range = dateRangeOf(section, window);
  const text = query
    .replaceAll('{start_date}', resolveReportDate(range.startDate ?? section.start_date, now))
    .replaceAll('{end_date}', resolveReportDate(range.endDate ?? section.end_date, now))
    .replace(/\s+/g, ' ').trim();
  return {
    name,
    path: `/${section.api_version}/customers/${digitsOf(section.property_id)}/googleAds:search`,
    method: 'POST',
    body: { query: text },
    dataSelector: (body) => (body as { results?: unknown }).results ?? [],
    paginator: bodyCursor('nextPageToken', 'pageToken'),
    // camelCase JSON (`adGroupCriterion.keyword.matchType`) back to the GAQL names the query used.
    mapRecord: (record) => snakeCaseKeys(record) as Record<string, unknown>,
    // Rows by day: a backfill replaces its window's days; a query without segments.date has no day to go by.
    ...(/\bsegments\.date\b/.test(text) ? { windowColumn: 'segments.date' } : {}),
  };
}

/** `search_ads`: Google Ads API reports by GAQL over `googleAds:search`, reloaded for the date range each sync. */
const searchAdsConnector: Connector = {
  async extract(context, sink) {
    await restSourceConnector<SearchAdsSection>({
      baseUrl: () => GOOGLE_ADS_API,
      auth: (section, env, http) => adsAuth(
        googleAuth({ env, credentialsEnv: section.credentials_env, scope: SCOPE, http, oauthAccessToken: context.oauthAccessToken }),
        requireEnv(env, section.developer_token_env, 'the Google Ads developer token'),
        section.login_customer_id,
      ),
      resources: (section, { now, window }) => [
        ...section.resources.map((name) => queryResource(name, REPORT_QUERIES[name], section, now, window)),
        ...section.queries.map((query) => queryResource(query.name, query.query, section, now, window)),
      ],
    }).extract(context, sink);
  },
};

export const searchAdsType = defineSourceType({
  key: 'search_ads', category: 'Marketing & Analytics', authType: 'OAuth', wizard: true, incremental: false,
  section: 'own', schema: SearchAdsSection,
  resources: RESOURCES,
  connector: searchAdsConnector,
});
