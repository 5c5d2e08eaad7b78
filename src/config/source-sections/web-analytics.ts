import { z } from 'zod';
import { EnvVarName, HttpUrl, NumericId, resourceList } from './field-types.ts';
import { ReportDate, ReportTableName } from './report-fields.ts';
import { defineSourceType } from '../source-type-definition.ts';

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

export const webAnalyticsType = defineSourceType({
  key: 'web_analytics', category: 'Marketing & Analytics', authType: 'OAuth', wizard: true, incremental: true,
  section: 'own', schema: WebAnalyticsSection,
  resources: RESOURCES,
});
