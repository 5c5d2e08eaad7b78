import { z } from 'zod';
import { SOURCE_RESOURCES } from '../source-types.ts';
import { EnvVarName, HttpUrl, resourceList } from './field-types.ts';

/** The spec shows only resources; service-account credentials come, as for the other types, through an env var. */
export const CrmBSection = z.strictObject({
  resources: resourceList(SOURCE_RESOURCES.crm_b),
  credentials_env: EnvVarName.default('CRM_B_CREDENTIALS'),
  base_url: HttpUrl.optional(),
});
export type CrmBSection = z.output<typeof CrmBSection>;
