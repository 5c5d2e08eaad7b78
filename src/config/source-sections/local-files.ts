import { z } from 'zod';
import { NonEmptyString } from './field-types.ts';

export const LocalFilesSection = z.strictObject({
  directory: NonEmptyString,
  file_pattern: NonEmptyString.default('*'),
  /** How to regenerate the files. */
  notes: z.string().optional(),
});
export type LocalFilesSection = z.output<typeof LocalFilesSection>;
