import type { SourceConfigOf } from '../../config/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { basicAuth, offsetParam, requireEnv, restSourceConnector, singlePage, type RestResource } from '../rest/index.ts';

type IssueTrackerConfig = SourceConfigOf<'issue_tracker'>['generic_config'];
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

const RESOURCES: Readonly<Record<IssueTrackerResource, (config: IssueTrackerConfig) => RestResource>> = {
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
export const issueTrackerConnector = restSourceConnector<IssueTrackerConfig>({
  baseUrl: (config) => `https://${config.site ?? ''}.atlassian.net/rest/api/3`,
  auth: (config, env) => {
    if (config.email === undefined) throw new SyncFailedError('generic_config.email is not set: Jira takes the API token with the email of its Atlassian account');
    return basicAuth(config.email, requireEnv(env, config.api_token_env, 'an Atlassian API token'));
  },
  resources: (config) => config.resources.map((resource) => RESOURCES[resource](config)),
});
