import { z } from 'zod';
import { basicAuth, offsetParam, requireEnv, restSourceConnector, singlePage, type RestResource } from '../rest/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { EnvVarName, NonEmptyString, requiredUnless, resourceList, Subdomain, genericConfig, defineSourceType } from '../type-definition/index.ts';

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
type IssueTrackerResource = IssueTrackerConfig['resources'][number];

/** The search endpoint's largest page for issues with their fields. */
const ISSUE_PAGE_SIZE = 100;
const PAGE_SIZE = 50;

/** The issues asked for, oldest first so pages stay stable while issues are being created. */
function issueJql(config: IssueTrackerConfig): string {
  const conditions = [
    ...(config.projects === undefined ? [] : [`project in (${config.projects.map((key) => `"${key}"`).join(', ')})`]),
    ...(config.jql === undefined ? [] : [`(${config.jql})`]),
  ];
  return `${conditions.join(' AND ')} ORDER BY created ASC`.trim();
}

/** Jira pages by `startAt`/`maxResults`; paginated lists say their `total`, `users/search` does not. */
function pagedResource(name: IssueTrackerResource, path: string, options: { size?: number; listKey?: string; total?: boolean } = {}): RestResource {
  const size = options.size ?? PAGE_SIZE;
  return {
    name,
    path,
    params: { maxResults: size },
    dataSelector: options.listKey,
    paginator: offsetParam({ limit: size, offset_param: 'startAt', limit_param: 'maxResults', total_path: options.total === false ? undefined : 'total' }),
  };
}

const RESOURCE_REQUESTS: Readonly<Record<IssueTrackerResource, (config: IssueTrackerConfig) => RestResource>> = {
  issues: (config) => {
    const resource = pagedResource('issues', 'search', { size: ISSUE_PAGE_SIZE, listKey: 'issues' });
    return { ...resource, params: { ...resource.params, jql: issueJql(config) } };
  },
  projects: () => pagedResource('projects', 'project/search', { listKey: 'values' }),
  users: () => pagedResource('users', 'users/search', { total: false }),
  workflows: () => pagedResource('workflows', 'workflow/search', { listKey: 'values' }),
  priorities: () => pagedResource('priorities', 'priority/search', { listKey: 'values' }),
  statuses: () => pagedResource('statuses', 'statuses/search', { listKey: 'values' }),
  issue_types: () => ({ name: 'issue_types', path: 'issuetype', paginator: singlePage }),
};

/** `issue_tracker`: the Jira Cloud REST API v3, with an Atlassian account's email and API token. */
const issueTrackerConnector = restSourceConnector<IssueTrackerConfig>({
  baseUrl: (config) => `https://${config.site ?? ''}.atlassian.net/rest/api/3`,
  auth: (config, env) => {
    if (config.email === undefined) throw new SyncFailedError('generic_config.email is not set: Jira takes the API token with the email of its Atlassian account');
    return basicAuth(config.email, requireEnv(env, config.api_token_env, 'an Atlassian API token'));
  },
  resources: (config) => config.resources.map((resource) => RESOURCE_REQUESTS[resource](config)),
});

export const issueTrackerType = defineSourceType({
  key: 'issue_tracker', category: 'Business & CRM', authType: 'Basic', wizard: false, wizardDisabledReason: 'its upstream loader has endpoint problems; configure it via native_pipeline', incremental: false,
  section: 'generic', schema: IssueTrackerConfig,
  resources: RESOURCES,
  connector: issueTrackerConnector,
});
