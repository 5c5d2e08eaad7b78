import { z } from 'zod';
import type { DateWindow } from '../date-window.ts';
import { basicAuth, dateRangeOf, headerLink, requireEnv, restSourceConnector, type QueryValue, type RestResource } from '../rest/index.ts';
import { boundsInOrder, CalendarDate, EnvVarName, resourceList, genericConfig, defineSourceType } from '../type-definition/index.ts';

const RESOURCES = {
  default: ['candidates', 'applications', 'jobs', 'offers', 'users', 'departments', 'offices'],
  available: ['candidates', 'applications', 'jobs', 'offers', 'users', 'departments', 'offices', 'job_posts', 'scorecards'],
} as const;

export const RecruitingConfig = genericConfig({
  api_key_env: EnvVarName.default('RECRUITING_API_KEY'),
  resources: resourceList(RESOURCES),
  /** Records created before this day are left out. */
  start_date: CalendarDate.optional(),
  /** Records created after this day are left out. */
  end_date: CalendarDate.optional(),
}).refine(...boundsInOrder('start_date', 'end_date'));
export type RecruitingConfig = z.output<typeof RecruitingConfig>;
type RecruitingResource = RecruitingConfig['resources'][number];

/** The largest page the API serves. */
const PAGE_SIZE = 500;

const UPDATED_AT = { path: 'updated_at', param: 'updated_after' } as const;

/**
 * The field a re-sync starts from and the parameter that filters on it, for the endpoints that take
 * timestamp filters (they take `created_after`/`created_before` too); departments and offices take none.
 */
const CURSORS: Readonly<Partial<Record<RecruitingResource, { path: string; param: string }>>> = {
  candidates: UPDATED_AT,
  applications: { path: 'last_activity_at', param: 'last_activity_after' },
  jobs: UPDATED_AT,
  offers: UPDATED_AT,
  users: UPDATED_AT,
  job_posts: UPDATED_AT,
  scorecards: UPDATED_AT,
};

function resourceOf(name: RecruitingResource, config: RecruitingConfig, window: DateWindow | undefined): RestResource {
  const cursor = CURSORS[name];
  const { startDate, endDate } = dateRangeOf(config, window);
  const params: Record<string, QueryValue> = { per_page: PAGE_SIZE };
  if (cursor === undefined) return { name, path: name, params, paginator: headerLink };
  if (startDate !== undefined) params.created_after = `${startDate}T00:00:00Z`;
  if (endDate !== undefined) params.created_before = `${endDate}T23:59:59Z`;
  return { name, path: name, params, paginator: headerLink, primaryKey: ['id'], incremental: { cursorPath: cursor.path, param: cursor.param } };
}

/** `recruiting`: the Greenhouse Harvest API, with the API key as the Basic user name and no password. */
const recruitingConnector = restSourceConnector<RecruitingConfig>({
  baseUrl: () => 'https://harvest.greenhouse.io/v1',
  auth: (config, env) => basicAuth(requireEnv(env, config.api_key_env, 'a Greenhouse Harvest API key'), ''),
  resources: (config, { window }) => config.resources.map((resource) => resourceOf(resource, config, window)),
});

export const recruitingType = defineSourceType({
  key: 'recruiting', category: 'Business & CRM', authType: 'API Key', wizard: true, incremental: true,
  section: 'generic', schema: RecruitingConfig,
  resources: RESOURCES,
  connector: recruitingConnector,
});
