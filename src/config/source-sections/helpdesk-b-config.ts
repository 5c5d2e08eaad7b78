import { z } from 'zod';
import { SOURCE_RESOURCES } from '../source-types.ts';
import { EnvVarName, requiredUnless, resourceList, Subdomain } from './field-types.ts';
import { genericConfig } from './generic-config.ts';

export const HelpdeskBConfig = genericConfig({
  /** The account's helpdesk domain: `acme` for acme.freshdesk.com. */
  domain: Subdomain.optional(),
  api_key_env: EnvVarName.default('HELPDESK_B_API_KEY'),
  resources: resourceList(SOURCE_RESOURCES.helpdesk_b),
}).refine(...requiredUnless('domain', 'base_url'));
export type HelpdeskBConfig = z.output<typeof HelpdeskBConfig>;
