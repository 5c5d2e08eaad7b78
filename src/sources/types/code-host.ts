import { z } from 'zod';
import { bearerAuth, headerLink, requireEnv, restSourceConnector, type RestResource } from '../rest/index.ts';
import { EnvVarName, HttpUrl, NonEmptyString, resourceList, defineSourceType } from '../type-definition/index.ts';

const RESOURCES = {
  default: ['issues', 'pull_requests', 'commits', 'releases', 'stargazers'],
  available: ['issues', 'pull_requests', 'commits', 'releases', 'stargazers'],
} as const;

export const CodeHostSection = z.strictObject({
  access_token_env: EnvVarName.default('CODE_HOST_ACCESS_TOKEN'),
  owner: NonEmptyString,
  /** The repository's name. */
  name: NonEmptyString,
  resources: resourceList(RESOURCES),
  base_url: HttpUrl.optional(),
});
export type CodeHostSection = z.output<typeof CodeHostSection>;
type Resource = CodeHostSection['resources'][number];

const HEADERS = { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' };

/** The issues list holds pull requests too (marked by `pull_request`); they have a table of their own. */
function issuesOnly(body: unknown): unknown {
  return Array.isArray(body) ? body.filter((item: { pull_request?: unknown }) => item.pull_request === undefined) : body;
}

function resourceOf(name: Resource, repository: string): RestResource {
  const shared = { name, headers: HEADERS, paginator: headerLink } as const;
  switch (name) {
    case 'issues':
      return {
        ...shared, path: `${repository}/issues`, params: { state: 'all', sort: 'updated', direction: 'asc', per_page: 100 },
        dataSelector: issuesOnly, primaryKey: ['id'], incremental: { cursorPath: 'updated_at', param: 'since' },
      };
    case 'pull_requests':
      // The pulls list takes no `since`: every sync reads them all and merges, so changed ones are updated in place.
      return { ...shared, path: `${repository}/pulls`, params: { state: 'all', sort: 'updated', direction: 'desc', per_page: 100 }, primaryKey: ['id'] };
    case 'commits':
      return {
        ...shared, path: `${repository}/commits`, params: { per_page: 100 },
        primaryKey: ['sha'], incremental: { cursorPath: 'commit.committer.date', param: 'since' },
      };
    case 'releases':
      return { ...shared, path: `${repository}/releases`, params: { per_page: 100 } };
    case 'stargazers':
      // This media type adds `starred_at` beside each user.
      return { ...shared, path: `${repository}/stargazers`, params: { per_page: 100 }, headers: { ...HEADERS, accept: 'application/vnd.github.star+json' } };
  }
}

/** `code_host`: one GitHub repository through the REST API, with a personal access token or an app's installation token. */
const codeHostConnector = restSourceConnector<CodeHostSection>({
  baseUrl: () => 'https://api.github.com',
  auth: (section, env) => bearerAuth(requireEnv(env, section.access_token_env, 'a GitHub access token')),
  resources: (section) => {
    const repository = `/repos/${encodeURIComponent(section.owner)}/${encodeURIComponent(section.name)}`;
    return section.resources.map((name) => resourceOf(name, repository));
  },
});

export const codeHostType = defineSourceType({
  key: 'code_host', category: 'Development', authType: 'API Key', wizard: true, incremental: true,
  section: 'own', schema: CodeHostSection,
  resources: RESOURCES,
  connector: codeHostConnector,
});
