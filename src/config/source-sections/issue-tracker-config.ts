import { z } from 'zod';
import { EnvVarName, NonEmptyString, requiredUnless, resourceList, Subdomain } from './field-types.ts';
import { genericConfig } from './generic-config.ts';
import { defineSourceType } from '../source-type-definition.ts';

const RESOURCES = {
  default: ['issues', 'projects', 'users'],
  available: ['issues', 'projects', 'users', 'workflows', 'issue_types', 'priorities', 'statuses'],
} as const;

/** A project key as Jira writes it: a capital letter, then capitals, digits or underscores. */
const ProjectKey = z.string().regex(/^[A-Z][A-Z0-9_]+$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a project key: use capital letters, digits and underscores, starting with a letter`,
});

export const IssueTrackerConfig = genericConfig({
  /** The Atlassian site: `acme` for acme.atlassian.net. */
  site: Subdomain.optional(),
  /** The Atlassian account the API token belongs to, the Basic user name. */
  email: z.email({
    error: (issue) => (issue.code === 'invalid_format' ? `expected an email address, got ${JSON.stringify(issue.input)}` : undefined),
  }).optional(),
  api_token_env: EnvVarName.default('ISSUE_TRACKER_API_TOKEN'),
  /** Limits the issues to these projects; every project the account sees when absent. */
  projects: z.array(ProjectKey).min(1).optional(),
  /** A JQL condition the issues must also meet (`statusCategory != Done`). */
  jql: NonEmptyString.optional(),
  resources: resourceList(RESOURCES),
}).refine(...requiredUnless('site', 'base_url'));
export type IssueTrackerConfig = z.output<typeof IssueTrackerConfig>;

export const issueTrackerType = defineSourceType({
  key: 'issue_tracker', category: 'Business & CRM', authType: 'Basic', wizard: false, wizardDisabledReason: 'its upstream loader has endpoint problems; configure it via native_pipeline', incremental: false,
  section: 'generic', schema: IssueTrackerConfig,
  resources: RESOURCES,
});
