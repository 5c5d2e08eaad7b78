import { z } from 'zod';
import { SOURCE_RESOURCES } from '../source-types.ts';
import { EnvVarName, resourceList, Subdomain } from './field-types.ts';
import { genericConfig } from './generic-config.ts';

export const CrmCConfig = genericConfig({
  /** The company's own API host (`acme` for acme.pipedrive.com); the shared api.pipedrive.com when absent. */
  company_domain: Subdomain.optional(),
  api_token_env: EnvVarName.default('CRM_C_API_TOKEN'),
  resources: resourceList(SOURCE_RESOURCES.crm_c),
});
export type CrmCConfig = z.output<typeof CrmCConfig>;
