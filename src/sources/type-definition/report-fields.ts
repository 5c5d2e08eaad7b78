import { z } from 'zod';
import { isCalendarDate } from './field-types.ts';

/** A reporting API's date: a day, `<N>daysAgo`, `yesterday` or `today`, as Google's reporting APIs write them. */
export const ReportDate = z.string().refine((text) => isCalendarDate(text) || /^\d+daysAgo$/.test(text) || text === 'today' || text === 'yesterday', {
  error: (issue) => `expected a date YYYY-MM-DD, <N>daysAgo, yesterday or today, got ${JSON.stringify(issue.input)}`,
});

/** The table a custom report or query loads into. */
export const ReportTableName = z.string().regex(/^[a-z][a-z0-9_]*$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a table name: use lowercase letters, digits and underscores`,
});
