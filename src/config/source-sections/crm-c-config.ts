import { z } from 'zod';
import { EnvVarName, resourceList, Subdomain } from './field-types.ts';
import { genericConfig } from './generic-config.ts';
import { defineSourceType } from '../source-type-definition.ts';

const RESOURCES = {
  default: ['deals', 'persons', 'organizations', 'activities', 'pipelines', 'stages', 'users'],
  available: ['deals', 'persons', 'organizations', 'activities', 'pipelines', 'stages', 'users', 'products'],
} as const;

export const CrmCConfig = genericConfig({
  /** The company's own API host (`acme` for acme.pipedrive.com); the shared api.pipedrive.com when absent. */
  company_domain: Subdomain.optional(),
  api_token_env: EnvVarName.default('CRM_C_API_TOKEN'),
  resources: resourceList(RESOURCES),
});
export type CrmCConfig = z.output<typeof CrmCConfig>;

export const crmCType = defineSourceType({
  key: 'crm_c', category: 'Business & CRM', authType: 'API Key', wizard: true, incremental: true,
  section: 'generic', schema: CrmCConfig,
  resources: RESOURCES,
});
