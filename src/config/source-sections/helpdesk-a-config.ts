import { z } from 'zod';
import { boundsInOrder, CalendarDate, EnvVarName, requiredUnless, resourceList, Subdomain } from './field-types.ts';
import { genericConfig } from './generic-config.ts';
import { defineSourceType } from '../source-type-definition.ts';

const RESOURCES = {
  default: ['tickets', 'ticket_fields'],
  available: ['tickets', 'ticket_fields', 'ticket_events', 'ticket_metric_events'],
} as const;

export const HelpdeskAConfig = genericConfig({
  subdomain: Subdomain.optional(),
  /** The agent the API token belongs to: the user name is `{email}/token`. */
  email: z.email({
    error: (issue) => (issue.code === 'invalid_format' ? `expected an email address, got ${JSON.stringify(issue.input)}` : undefined),
  }).optional(),
  api_token_env: EnvVarName.default('HELPDESK_A_API_TOKEN'),
  resources: resourceList(RESOURCES),
  start_date: CalendarDate.optional(),
  end_date: CalendarDate.optional(),
})
  .refine(...requiredUnless('subdomain', 'base_url'))
  .refine((config) => config.email !== undefined, { path: ['email'], error: 'required: the email of the agent the API token belongs to' })
  .refine(...boundsInOrder('start_date', 'end_date'));
export type HelpdeskAConfig = z.output<typeof HelpdeskAConfig>;

export const helpdeskAType = defineSourceType({
  key: 'helpdesk_a', category: 'Business & CRM', authType: 'Basic', wizard: true, incremental: true,
  section: 'generic', schema: HelpdeskAConfig,
  resources: RESOURCES,
});
