import { z } from 'zod';
import { EnvVarName, HttpUrl, NumericId } from './field-types.ts';

export const SearchAdsSection = z.strictObject({
  /** The ads customer id. */
  property_id: NumericId,
  credentials_env: EnvVarName.default('ANALYTICS_CREDENTIALS'),
  base_url: HttpUrl.optional(),
});
export type SearchAdsSection = z.output<typeof SearchAdsSection>;
