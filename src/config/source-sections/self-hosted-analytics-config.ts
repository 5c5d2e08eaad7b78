import { z } from 'zod';
import { CalendarDate, EnvVarName, HttpUrl, NumericId, resourceList } from './field-types.ts';
import { genericConfig } from './generic-config.ts';
import { defineSourceType } from '../source-type-definition.ts';

const RESOURCES = {
  default: ['visits_summary', 'visits'],
  available: ['visits_summary', 'visits', 'page_urls'],
} as const;

export const SelfHostedAnalyticsConfig = genericConfig({
  /** The Matomo installation's root (`https://analytics.acme.example`): self-hosted, so there is no default. */
  base_url: HttpUrl,
  site_id: NumericId,
  token_auth_env: EnvVarName.default('SELF_HOSTED_ANALYTICS_TOKEN'),
  resources: resourceList(RESOURCES),
  /** The first day a first sync loads; 30 days before it when absent. */
  start_date: CalendarDate.optional(),
});
export type SelfHostedAnalyticsConfig = z.output<typeof SelfHostedAnalyticsConfig>;

export const selfHostedAnalyticsType = defineSourceType({
  key: 'self_hosted_analytics', category: 'Marketing & Analytics', authType: 'API Key', wizard: false, wizardDisabledReason: 'passes its token as a GET parameter, a security risk; configure it via native_pipeline', incremental: true,
  section: 'generic', schema: SelfHostedAnalyticsConfig,
  resources: RESOURCES,
});
