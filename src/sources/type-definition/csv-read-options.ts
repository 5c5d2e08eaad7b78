import { z } from 'zod';
import { NonEmptyString } from './field-types.ts';

const OneCharacter = z.string().max(1);

/**
 * DuckDB `read_csv` options a file source may fix instead of letting DuckDB detect them, by DuckDB's own names;
 * whatever is not set is still detected per file. Only options that shape how a file is read are allowed.
 */
export const CsvReadOptions = z.strictObject({
  delim: z.string().min(1).max(4).optional(),
  quote: OneCharacter.optional(),
  escape: OneCharacter.optional(),
  new_line: z.enum(['\\n', '\\r', '\\r\\n', '\n', '\r', '\r\n']).optional(),
  comment: OneCharacter.optional(),
  skip: z.number().int().min(0).optional(),
  header: z.boolean().optional(),
  dateformat: NonEmptyString.optional(),
  timestampformat: NonEmptyString.optional(),
  decimal_separator: z.enum(['.', ',']).optional(),
  thousands: OneCharacter.optional(),
  nullstr: z.union([z.string(), z.array(z.string()).min(1).readonly()]).optional(),
  null_padding: z.boolean().optional(),
  ignore_errors: z.boolean().optional(),
  strict_mode: z.boolean().optional(),
  allow_quoted_nulls: z.boolean().optional(),
  all_varchar: z.boolean().optional(),
  encoding: z.enum(['utf-8', 'utf-16', 'latin-1']).optional(),
  max_line_size: z.number().int().positive().optional(),
  sample_size: z.number().int().min(-1).optional(),
  names: z.array(NonEmptyString).min(1).readonly().optional(),
  types: z.record(NonEmptyString, NonEmptyString).readonly().optional(),
});
export type CsvReadOptions = z.output<typeof CsvReadOptions>;
