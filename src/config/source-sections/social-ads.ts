import { z } from 'zod';
import { CalendarDate, EnvVarName, HttpUrl, resourceList } from './field-types.ts';
import { defineSourceType } from '../source-type-definition.ts';

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

export const socialAdsType = defineSourceType({
  key: 'social_ads', category: 'Marketing & Analytics', authType: 'OAuth', wizard: true, incremental: true,
  section: 'own', schema: SocialAdsSection,
  resources: RESOURCES,
});
