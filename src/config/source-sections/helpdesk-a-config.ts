import { z } from 'zod';
import { SOURCE_RESOURCES } from '../source-types.ts';
import { resourceList } from './field-types.ts';
import { genericConfig } from './generic-config.ts';

/** The subdomain becomes part of the API's host name, so it must be one DNS label. */
const Subdomain = z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a subdomain: use letters, digits and inner hyphens`,
});

export const HelpdeskAConfig = genericConfig({
  subdomain: Subdomain.optional(),
  email: z.email({
    error: (issue) => (issue.code === 'invalid_format' ? `expected an email address, got ${JSON.stringify(issue.input)}` : undefined),
  }).optional(),
  resources: resourceList(SOURCE_RESOURCES.helpdesk_a),
});
export type HelpdeskAConfig = z.output<typeof HelpdeskAConfig>;
