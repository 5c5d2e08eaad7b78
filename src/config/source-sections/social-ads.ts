import { z } from 'zod';
import { SOURCE_RESOURCES } from '../source-types.ts';
import { CalendarDate, EnvVarName, HttpUrl, NonEmptyString, resourceList } from './field-types.ts';

export const SocialAdsSection = z.strictObject({
  /** The ads account id including the platform's account prefix. */
  account_id: NonEmptyString,
  access_token_env: EnvVarName.default('SOCIAL_ADS_ACCESS_TOKEN'),
  initial_load_past_days: z.int().positive().default(30),
  start_date: CalendarDate.optional(),
  resources: resourceList(SOURCE_RESOURCES.social_ads),
  base_url: HttpUrl.optional(),
});
export type SocialAdsSection = z.output<typeof SocialAdsSection>;
