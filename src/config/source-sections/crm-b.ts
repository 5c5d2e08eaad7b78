import { z } from 'zod';
import { SOURCE_RESOURCES } from '../source-types.ts';
import { EnvVarName, HttpUrl, resourceList } from './field-types.ts';

/** The spec shows only resources; service-account credentials come, as for the other types, through an env var. */
export const CrmBSection = z.strictObject({
  resources: resourceList(SOURCE_RESOURCES.crm_b),
  credentials_env: EnvVarName.default('CRM_B_CREDENTIALS'),
  /** The REST API version (`v62.0`); Salesforce keeps old versions for years. */
  api_version: z.string().regex(/^v\d+\.\d$/, { error: 'expected a REST API version like v62.0' }).default('v62.0'),
  base_url: HttpUrl.optional(),
});
export type CrmBSection = z.output<typeof CrmBSection>;
