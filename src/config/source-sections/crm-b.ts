import { z } from 'zod';
import { EnvVarName, HttpUrl, resourceList } from './field-types.ts';
import { defineSourceType } from '../source-type-definition.ts';

const RESOURCES = {
  default: ['account', 'contact', 'lead', 'opportunity', 'campaign'],
  available: [
    'account', 'contact', 'lead', 'opportunity', 'campaign', 'task', 'event', 'sf_user', 'user_role', 'product_2',
  ],
} as const;

/** The spec shows only resources; service-account credentials come, as for the other types, through an env var. */
export const CrmBSection = z.strictObject({
  resources: resourceList(RESOURCES),
  credentials_env: EnvVarName.default('CRM_B_CREDENTIALS'),
  /** The REST API version (`v62.0`); Salesforce keeps old versions for years. */
  api_version: z.string().regex(/^v\d+\.\d$/, { error: 'expected a REST API version like v62.0' }).default('v62.0'),
  base_url: HttpUrl.optional(),
});
export type CrmBSection = z.output<typeof CrmBSection>;

export const crmBType = defineSourceType({
  key: 'crm_b', category: 'Business & CRM', authType: 'Service Account', wizard: true, incremental: true,
  section: 'own', schema: CrmBSection,
  resources: RESOURCES,
});
