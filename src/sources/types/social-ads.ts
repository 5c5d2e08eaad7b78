import { z } from 'zod';
import { jsonLink, queryAuth, requireEnv, restSessionConnector, type HttpRequest, type RestResource, type RestSession } from '../rest/index.ts';
import { CalendarDate, EnvVarName, HttpUrl, resourceList, defineSourceType } from '../type-definition/index.ts';
import { daysBefore } from './report-dates.ts';

const RESOURCES = {
  default: ['campaigns', 'ads', 'ad_sets', 'facebook_insights'],
  available: ['campaigns', 'ads', 'ad_sets', 'ad_creatives', 'leads', 'facebook_insights'],
} as const;

export const SocialAdsSection = z.strictObject({
  /** The ads account id including the platform's account prefix. */
  account_id: z.string().regex(/^act_\d+$/, {
    error: (issue) => `expected an ad account id with its act_ prefix, like act_1234567890, got ${JSON.stringify(issue.input)}`,
  }),
  access_token_env: EnvVarName.default('SOCIAL_ADS_ACCESS_TOKEN'),
  initial_load_past_days: z.int().positive().default(30),
  start_date: CalendarDate.optional(),
  resources: resourceList(RESOURCES),
  /** The Graph API version; Meta retires each about two years after release. */
  api_version: z.string().regex(/^v\d+\.\d+$/, { error: 'expected a Graph API version like v23.0' }).default('v23.0'),
  base_url: HttpUrl.optional(),
});
export type SocialAdsSection = z.output<typeof SocialAdsSection>;
type SocialAdsResource = SocialAdsSection['resources'][number];

const GRAPH_API = 'https://graph.facebook.com';
const PAGE_SIZE = 100;

/** Account edges and the fields asked of each: Graph returns only `id` unless fields are named. */
const OBJECT_EDGES = {
  campaigns: {
    edge: 'campaigns',
    fields: 'id,name,status,effective_status,objective,buying_type,daily_budget,lifetime_budget,budget_remaining,special_ad_categories,start_time,stop_time,created_time,updated_time',
  },
  ad_sets: {
    edge: 'adsets',
    fields: 'id,name,campaign_id,status,effective_status,daily_budget,lifetime_budget,billing_event,optimization_goal,bid_strategy,targeting,start_time,end_time,created_time,updated_time',
  },
  ads: {
    edge: 'ads',
    fields: 'id,name,adset_id,campaign_id,status,effective_status,creative{id},tracking_specs,created_time,updated_time',
  },
  ad_creatives: {
    edge: 'adcreatives',
    fields: 'id,name,title,body,status,object_type,object_story_spec,thumbnail_url,url_tags,call_to_action_type',
  },
} as const;

const INSIGHTS_FIELDS = [
  'account_id', 'account_currency', 'campaign_id', 'campaign_name', 'adset_id', 'adset_name', 'ad_id', 'ad_name',
  'impressions', 'reach', 'frequency', 'clicks', 'unique_clicks', 'spend', 'cpc', 'cpm', 'ctr', 'actions', 'action_values',
].join(',');

const LEAD_FIELDS = 'id,created_time,ad_id,adset_id,campaign_id,form_id,is_organic,field_data';

const nextPage = jsonLink('paging.next');

function objectResource(section: SocialAdsSection, resource: keyof typeof OBJECT_EDGES): RestResource {
  const { edge, fields } = OBJECT_EDGES[resource];
  return {
    name: resource, path: `/${section.api_version}/${section.account_id}/${edge}`,
    params: { fields, limit: PAGE_SIZE }, dataSelector: 'data', paginator: nextPage,
  };
}

/** Daily insights per ad: `time_increment=1` over `time_range`, from the cursor's day to today. */
function insightsResource(section: SocialAdsSection, now: Date): RestResource {
  const until = daysBefore(now, 0);
  const inRange = (request: HttpRequest, since: string | number): void => {
    request.url.searchParams.set('time_range', JSON.stringify({ since: String(since).slice(0, 10), until }));
  };
  return {
    name: 'facebook_insights',
    path: `/${section.api_version}/${section.account_id}/insights`,
    params: { level: 'ad', fields: INSIGHTS_FIELDS, time_increment: 1, limit: PAGE_SIZE },
    dataSelector: 'data',
    paginator: nextPage,
    primaryKey: ['ad_id', 'date_start'],
    // Meta keeps attributing conversions to past days: a re-sync reads again from the last loaded day (minus lookback_days) and merges.
    incremental: { cursorPath: 'date_start', apply: inRange, initialValue: section.start_date ?? daysBefore(now, section.initial_load_past_days) },
  };
}

/** Leads hang off ads, not the account: one request (and its pages) per ad. */
async function extractLeads(session: RestSession, section: SocialAdsSection, adIds: readonly string[]): Promise<void> {
  for (const adId of adIds) {
    await session.extract({
      name: 'leads', path: `/${section.api_version}/${adId}/leads`, params: { fields: LEAD_FIELDS, limit: PAGE_SIZE },
      dataSelector: 'data', paginator: nextPage, primaryKey: ['id'],
    });
  }
}

/** `social_ads`: Meta Marketing API (Graph API) objects of one ad account, its daily ad insights and its leads. */
const socialAdsConnector = restSessionConnector<SocialAdsSection>({
  baseUrl: () => GRAPH_API,
  auth: (section, env) => queryAuth('access_token', requireEnv(env, section.access_token_env, 'a Marketing API access token')),
  async extract(session, section, context) {
    const wanted = new Set<SocialAdsResource>(section.resources);
    let adIds: string[] = [];
    for (const resource of ['campaigns', 'ad_sets', 'ads', 'ad_creatives'] as const) {
      if (resource === 'ads' && wanted.has('leads')) {
        const ads = await session.collect(objectResource(section, 'ads'), { stage: wanted.has('ads') });
        adIds = ads.map((ad) => String(ad.id));
      } else if (wanted.has(resource)) {
        await session.extract(objectResource(section, resource));
      }
    }
    if (wanted.has('facebook_insights')) await session.extract(insightsResource(section, context.now));
    if (wanted.has('leads')) await extractLeads(session, section, adIds);
  },
});

export const socialAdsType = defineSourceType({
  key: 'social_ads', category: 'Marketing & Analytics', authType: 'OAuth', wizard: true, incremental: true,
  section: 'own', schema: SocialAdsSection,
  resources: RESOURCES,
  connector: socialAdsConnector,
});
