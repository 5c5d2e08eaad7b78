import { z } from 'zod';
import { offsetParam, queryAuth, requireEnv, restSourceConnector, valueAt, type HttpRequest, type RestResource } from '../rest/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { CalendarDate, EnvVarName, HttpUrl, NumericId, resourceList, genericConfig, defineSourceType } from '../type-definition/index.ts';

const RESOURCES = {
  default: ['visits_summary', 'visits'],
  available: ['visits_summary', 'visits', 'page_urls'],
} as const;

export const SelfHostedAnalyticsConfig = genericConfig({
  /** The Matomo installation's root (`https://analytics.acme.example`): self-hosted, so there is no default. */
  base_url: HttpUrl,
  site_id: NumericId,
  token_auth_env: EnvVarName.default('SELF_HOSTED_ANALYTICS_TOKEN'),
  resources: resourceList(RESOURCES),
  /** The first day a first sync loads; 30 days before it when absent. */
  start_date: CalendarDate.optional(),
});
export type SelfHostedAnalyticsConfig = z.output<typeof SelfHostedAnalyticsConfig>;
type SelfHostedAnalyticsResource = SelfHostedAnalyticsConfig['resources'][number];

const VISITS_PAGE_SIZE = 100;
const INITIAL_DAYS = 30;

/** The Reporting API answers errors, a refused token among them, with HTTP 200 and `{result: "error", message}`. */
function checked(method: string, body: unknown): unknown {
  if (valueAt(body, 'result') === 'error') {
    const message = valueAt(body, 'message');
    throw new SyncFailedError(`The Matomo API refused ${method}: ${typeof message === 'string' ? message : 'no message'}`);
  }
  return body;
}

/**
 * `period=day` over a date range answers `{"2024-01-01": …, …}`; each day becomes records carrying
 * their date: one for a metrics object, one per row for a table, none for a day without data (`[]`).
 */
function recordsByDay(method: string, body: unknown): Record<string, unknown>[] {
  const days = checked(method, body);
  if (days === null || typeof days !== 'object') return [];
  return Object.entries(days as Record<string, unknown>).flatMap(([date, value]) => {
    if (Array.isArray(value)) return value.map((row: unknown) => ({ date, ...(row as Record<string, unknown>) }));
    return [{ date, ...(value as Record<string, unknown>) }];
  });
}

/** Re-syncs ask again from the last day loaded (it may have been partial) through today, in the site's time zone. */
function fromDayToToday(request: HttpRequest, since: string | number): void {
  request.url.searchParams.set('date', `${String(since)},today`);
}

function reportResource(name: SelfHostedAnalyticsResource, method: string, config: SelfHostedAnalyticsConfig, firstDay: string, extra: Readonly<Record<string, string>> = {}, key: readonly string[] = ['date']): RestResource {
  return {
    name,
    path: 'index.php',
    params: { module: 'API', method, idSite: config.site_id, period: 'day', format: 'JSON', ...extra },
    dataSelector: (body) => recordsByDay(method, body),
    primaryKey: key,
    incremental: { cursorPath: 'date', apply: fromDayToToday, initialValue: firstDay },
  };
}

function resourceOf(name: SelfHostedAnalyticsResource, config: SelfHostedAnalyticsConfig, firstDay: string): RestResource {
  switch (name) {
    case 'visits_summary':
      return reportResource(name, 'VisitsSummary.get', config, firstDay);
    case 'page_urls':
      return reportResource(name, 'Actions.getPageUrls', config, firstDay, { flat: '1' }, ['date', 'label']);
    case 'visits':
      return {
        name,
        path: 'index.php',
        params: {
          module: 'API', method: 'Live.getLastVisitsDetails', idSite: config.site_id, period: 'range', date: `${firstDay},today`,
          format: 'JSON', filter_limit: VISITS_PAGE_SIZE, filter_sort_order: 'asc',
        },
        dataSelector: (body) => checked('Live.getLastVisitsDetails', body),
        paginator: offsetParam({ limit: VISITS_PAGE_SIZE, offset_param: 'filter_offset', limit_param: 'filter_limit' }),
        primaryKey: ['idVisit'],
        // A visit goes on after it is first loaded: the next sync asks for visits active since the last action seen.
        incremental: { cursorPath: 'lastActionTimestamp', param: 'minTimestamp', format: 'unix' },
      };
  }
}

/** `self_hosted_analytics`: the Matomo Reporting API, with `token_auth` as a query parameter. */
const selfHostedAnalyticsConnector = restSourceConnector<SelfHostedAnalyticsConfig>({
  // Self-hosted: there is no vendor root, and the config requires base_url, which replaces this one.
  baseUrl: () => {
    throw new SyncFailedError('generic_config.base_url is not set: give the root of the Matomo installation');
  },
  auth: (config, env) => queryAuth('token_auth', requireEnv(env, config.token_auth_env, 'a Matomo token_auth')),
  resources: (config, { now }) => {
    const firstDay = config.start_date ?? new Date(now.getTime() - INITIAL_DAYS * 86_400_000).toISOString().slice(0, 10);
    return config.resources.map((resource) => resourceOf(resource, config, firstDay));
  },
});

export const selfHostedAnalyticsType = defineSourceType({
  key: 'self_hosted_analytics', category: 'Marketing & Analytics', authType: 'API Key', wizard: false, wizardDisabledReason: 'passes its token as a GET parameter, a security risk; configure it via native_pipeline', incremental: true,
  section: 'generic', schema: SelfHostedAnalyticsConfig,
  resources: RESOURCES,
  connector: selfHostedAnalyticsConnector,
});
