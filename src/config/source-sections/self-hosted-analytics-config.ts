import { z } from 'zod';
import { SOURCE_RESOURCES } from '../source-types.ts';
import { CalendarDate, EnvVarName, HttpUrl, NumericId, resourceList } from './field-types.ts';
import { genericConfig } from './generic-config.ts';

export const SelfHostedAnalyticsConfig = genericConfig({
  /** The Matomo installation's root (`https://analytics.acme.example`): self-hosted, so there is no default. */
  base_url: HttpUrl,
  site_id: NumericId,
  token_auth_env: EnvVarName.default('SELF_HOSTED_ANALYTICS_TOKEN'),
  resources: resourceList(SOURCE_RESOURCES.self_hosted_analytics),
  /** The first day a first sync loads; 30 days before it when absent. */
  start_date: CalendarDate.optional(),
});
export type SelfHostedAnalyticsConfig = z.output<typeof SelfHostedAnalyticsConfig>;
