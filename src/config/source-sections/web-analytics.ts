import { z } from 'zod';
import { EnvVarName, HttpUrl, isCalendarDate, NumericId } from './field-types.ts';

const RELATIVE_DATE = /^\d+daysAgo$/;

const StartDate = z.string().refine((text) => isCalendarDate(text) || RELATIVE_DATE.test(text), {
  error: (issue) => `expected a date YYYY-MM-DD or <N>daysAgo, got ${JSON.stringify(issue.input)}`,
});

export const WebAnalyticsSection = z.strictObject({
  property_id: NumericId,
  credentials_env: EnvVarName.default('ANALYTICS_CREDENTIALS'),
  start_date: StartDate.optional(),
  base_url: HttpUrl.optional(),
});
export type WebAnalyticsSection = z.output<typeof WebAnalyticsSection>;
