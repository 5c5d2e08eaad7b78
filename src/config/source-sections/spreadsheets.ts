import { z } from 'zod';
import { HttpUrl, NonEmptyString, StringList } from './field-types.ts';
import { defineSourceType } from '../source-type-definition.ts';

export const DEDUPLICATION_MODES = ['none', 'latest_only', 'append_only', 'scd_type2'] as const;

export const SpreadsheetsSection = z.strictObject({
  spreadsheet_url_or_id: NonEmptyString,
  /** Sheet or tab names. */
  range_names: StringList,
  deduplication: z.enum(DEDUPLICATION_MODES).default('latest_only'),
  base_url: HttpUrl.optional(),
});
export type SpreadsheetsSection = z.output<typeof SpreadsheetsSection>;

export const spreadsheetsType = defineSourceType({
  key: 'spreadsheets', category: 'Marketing & Analytics', authType: 'OAuth', wizard: true, incremental: false,
  section: 'own', schema: SpreadsheetsSection,
});
