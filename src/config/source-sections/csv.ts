import { z } from 'zod';
import { NonEmptyString } from './field-types.ts';

export const CsvSection = z.strictObject({
  directory: NonEmptyString,
  file_pattern: NonEmptyString.default('*.csv'),
  notes: z.string().optional(),
});
export type CsvSection = z.output<typeof CsvSection>;
