import { z } from 'zod';
import type { DateWindow } from '../date-window.ts';
import type { Connector } from '../connector.ts';
import { dateRangeOf, restSourceConnector, valueAt, type HttpRequest, type Paginator, type RestResource } from '../rest/index.ts';
import { EnvVarName, HttpUrl, NumericId, resourceList, ReportDate, ReportTableName, defineSourceType } from '../type-definition/index.ts';
import { googleAuth } from './google-credentials.ts';
import { resolveReportDate } from './report-dates.ts';
import { snakeCase } from './snake-case.ts';

const RESOURCES = {
  default: ['traffic', 'pages'],
  available: ['traffic', 'pages', 'events', 'devices', 'locations'],
} as const;

/** The API's names: letters, digits and underscores (`sessionSource`, `customEvent:plan`). */
const ApiName = z.string().regex(/^[A-Za-z][A-Za-z0-9_:]*$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a dimension or metric name`,
});

/** A custom report: its own table, the dimensions it groups by and the metrics it sums. */
const CustomReport = z.strictObject({
  name: ReportTableName,
  dimensions: z.array(ApiName).min(1).max(9),
  metrics: z.array(ApiName).min(1).max(10),
});

export const WebAnalyticsSection = z.strictObject({
  property_id: NumericId,
  credentials_env: EnvVarName.default('ANALYTICS_CREDENTIALS'),
  start_date: ReportDate.optional(),
  end_date: ReportDate.optional(),
  /** Built-in reports. */
  resources: resourceList(RESOURCES),
  /** Custom report queries, each loaded into its own table. */
  queries: z.array(CustomReport).default(() => []),
  /** Rows per runReport request; the API allows up to 250,000. */
  page_size: z.int().min(1).max(250_000).default(10_000),
  base_url: HttpUrl.optional(),
}).refine((section) => !section.queries.some((query) => (section.resources as readonly string[]).includes(query.name)), {
  path: ['queries'], error: 'a custom report must not take the name of a built-in report it also loads',
});
export type WebAnalyticsSection = z.output<typeof WebAnalyticsSection>;
type BuiltInReport = WebAnalyticsSection['resources'][number];

const ANALYTICS_DATA_API = 'https://analyticsdata.googleapis.com';
const SCOPE = 'https://www.googleapis.com/auth/analytics.readonly';
/** The earliest date the Data API reports on. */
const FIRST_REPORT_DATE = '2015-08-14';

interface ReportDefinition { readonly dimensions: readonly string[]; readonly metrics: readonly string[] }

const BUILT_IN_REPORTS: Readonly<Record<BuiltInReport, ReportDefinition>> = {
  traffic: {
    dimensions: ['date', 'sessionSource', 'sessionMedium', 'sessionCampaignName'],
    metrics: ['sessions', 'engagedSessions', 'totalUsers', 'newUsers', 'screenPageViews', 'keyEvents'],
  },
  pages: {
    dimensions: ['date', 'hostName', 'pagePath', 'pageTitle'],
    metrics: ['screenPageViews', 'totalUsers', 'userEngagementDuration'],
  },
  events: { dimensions: ['date', 'eventName'], metrics: ['eventCount', 'totalUsers'] },
  devices: { dimensions: ['date', 'deviceCategory', 'operatingSystem', 'browser'], metrics: ['sessions', 'totalUsers'] },
  locations: { dimensions: ['date', 'country', 'region', 'city'], metrics: ['sessions', 'totalUsers'] },
};

interface ReportBody {
  readonly dateRanges: readonly { startDate: string; endDate: string }[];
  readonly offset?: number;
  readonly limit: number;
}

/** Metric values come as text; integer and decimal metrics become numbers. */
function metricValue(value: unknown, type: unknown): unknown {
  if (typeof value !== 'string' || type === 'TYPE_STRING') return value;
  const number = Number(value);
  return Number.isFinite(number) ? number : value;
}

/** A report's rows as records named by its headers in snake_case; `date` (YYYYMMDD) as YYYY-MM-DD so it orders and casts as a date. */
function reportRows(body: unknown): Record<string, unknown>[] {
  const dimensions = (valueAt(body, 'dimensionHeaders') ?? []) as { name: string }[];
  const metrics = (valueAt(body, 'metricHeaders') ?? []) as { name: string; type?: string }[];
  const rows = (valueAt(body, 'rows') ?? []) as { dimensionValues?: { value?: string }[]; metricValues?: { value?: string }[] }[];
  return rows.map((row) => {
    const record: Record<string, unknown> = {};
    dimensions.forEach((header, index) => {
      const value = row.dimensionValues?.[index]?.value ?? null;
      record[snakeCase(header.name)] = header.name === 'date' && value !== null && /^\d{8}$/.test(value)
        ? `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6)}` : value;
    });
    metrics.forEach((header, index) => { record[snakeCase(header.name)] = metricValue(row.metricValues?.[index]?.value ?? null, header.type); });
    return record;
  });
}

/** runReport pages by `offset` in the body until `rowCount` rows were read. */
const offsetInBody: Paginator = {
  next(request, response, records) {
    const body = request.body as ReportBody;
    const offset = (body.offset ?? 0) + records.length;
    const rowCount = Number(valueAt(response.body, 'rowCount') ?? 0);
    if (records.length === 0 || offset >= rowCount) return undefined;
    return { ...request, url: new URL(request.url), headers: { ...request.headers }, body: { ...body, offset } };
  },
};

function startingFrom(request: HttpRequest, since: string | number): void {
  const body = request.body as ReportBody;
  request.body = { ...body, dateRanges: [{ startDate: String(since), endDate: body.dateRanges[0]?.endDate ?? 'today' }] };
}

function reportResource(name: string, report: ReportDefinition, section: WebAnalyticsSection, now: Date, window: DateWindow | undefined): RestResource {
  const range = dateRangeOf(section, window);
  const startDate = resolveReportDate(range.startDate ?? FIRST_REPORT_DATE, now);
  const endDate = resolveReportDate(range.endDate ?? 'today', now);
  const byDate = report.dimensions.includes('date');
  return {
    name,
    path: `/v1beta/properties/${section.property_id}:runReport`,
    method: 'POST',
    body: {
      dateRanges: [{ startDate, endDate }],
      dimensions: report.dimensions.map((dimension) => ({ name: dimension })),
      metrics: report.metrics.map((metric) => ({ name: metric })),
      orderBys: byDate ? [{ dimension: { dimensionName: 'date' } }] : [],
      limit: section.page_size,
      keepEmptyRows: false,
    },
    dataSelector: reportRows,
    paginator: offsetInBody,
    // A day's figures change until Google has processed it: re-syncs read again from the last loaded day and merge.
    ...(byDate ? {
      primaryKey: report.dimensions.map(snakeCase),
      incremental: { cursorPath: 'date', apply: startingFrom, initialValue: startDate },
    } : {}),
  };
}

/** `web_analytics`: Google Analytics 4 Data API reports, built-in and custom, by day. */
const webAnalyticsConnector: Connector = {
  async extract(context, sink) {
    await restSourceConnector<WebAnalyticsSection>({
      baseUrl: () => ANALYTICS_DATA_API,
      auth: (section, env, http) => googleAuth({ env, credentialsEnv: section.credentials_env, scope: SCOPE, http, oauthAccessToken: context.oauthAccessToken }),
      resources: (section, { now, window }) => [
        ...section.resources.map((name) => reportResource(name, BUILT_IN_REPORTS[name], section, now, window)),
        ...section.queries.map((query) => reportResource(query.name, query, section, now, window)),
      ],
    }).extract(context, sink);
  },
};

export const webAnalyticsType = defineSourceType({
  key: 'web_analytics', category: 'Marketing & Analytics', authType: 'OAuth', wizard: true, incremental: true,
  section: 'own', schema: WebAnalyticsSection,
  resources: RESOURCES,
  connector: webAnalyticsConnector,
});
