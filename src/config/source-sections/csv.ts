import { z } from 'zod';
import { NonEmptyString } from './field-types.ts';
import { defineSourceType } from '../source-type-definition.ts';

export const CsvSection = z.strictObject({
  directory: NonEmptyString,
  file_pattern: NonEmptyString.default('*.csv'),
  notes: z.string().optional(),
});
export type CsvSection = z.output<typeof CsvSection>;

export const csvType = defineSourceType({
  key: 'csv', category: 'Local & Custom', authType: 'None', wizard: false, wizardDisabledReason: 'hidden; use local_files, or filesystem by hand for cloud object storage', incremental: true,
  section: 'own', schema: CsvSection,
});
