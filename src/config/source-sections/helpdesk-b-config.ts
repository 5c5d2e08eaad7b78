import { z } from 'zod';
import { EnvVarName, requiredUnless, resourceList, Subdomain } from './field-types.ts';
import { genericConfig } from './generic-config.ts';
import { defineSourceType } from '../source-type-definition.ts';

const RESOURCES = {
  default: ['tickets', 'contacts', 'companies', 'agents', 'groups'],
  available: ['tickets', 'contacts', 'companies', 'agents', 'groups', 'ticket_fields'],
} as const;

export const HelpdeskBConfig = genericConfig({
  /** The account's helpdesk domain: `acme` for acme.freshdesk.com. */
  domain: Subdomain.optional(),
  api_key_env: EnvVarName.default('HELPDESK_B_API_KEY'),
  resources: resourceList(RESOURCES),
}).refine(...requiredUnless('domain', 'base_url'));
export type HelpdeskBConfig = z.output<typeof HelpdeskBConfig>;

export const helpdeskBType = defineSourceType({
  key: 'helpdesk_b', category: 'Business & CRM', authType: 'API Key', wizard: true, incremental: true,
  section: 'generic', schema: HelpdeskBConfig,
  resources: RESOURCES,
});
