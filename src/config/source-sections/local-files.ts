import { z } from 'zod';
import { CsvReadOptions } from './csv-read-options.ts';
import { NonEmptyString } from './field-types.ts';
import { defineSourceType } from '../source-type-definition.ts';

export const LocalFilesSection = z.strictObject({
  directory: NonEmptyString,
  file_pattern: NonEmptyString.default('*'),
  /** DuckDB read_csv options fixed for every CSV file; anything not set is detected per file. */
  csv: CsvReadOptions.optional(),
  /** How to regenerate the files. */
  notes: z.string().optional(),
});
export type LocalFilesSection = z.output<typeof LocalFilesSection>;

export const localFilesType = defineSourceType({
  key: 'local_files', category: 'Local & Custom', authType: 'None', wizard: true, incremental: true,
  section: 'own', schema: LocalFilesSection,
});
