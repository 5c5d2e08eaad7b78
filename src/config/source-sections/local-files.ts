import { z } from 'zod';
import { NonEmptyString } from './field-types.ts';
import { defineSourceType } from '../source-type-definition.ts';

export const LocalFilesSection = z.strictObject({
  directory: NonEmptyString,
  file_pattern: NonEmptyString.default('*'),
  /** How to regenerate the files. */
  notes: z.string().optional(),
});
export type LocalFilesSection = z.output<typeof LocalFilesSection>;

export const localFilesType = defineSourceType({
  key: 'local_files', category: 'Local & Custom', authType: 'None', wizard: true, incremental: true,
  section: 'own', schema: LocalFilesSection,
});
