import { z } from 'zod';
import { defineSourceType } from '../source-type-definition.ts';
import { EnvVarName, HttpUrl } from './field-types.ts';

export const CsvUrlSection = z.strictObject({
  /** Where the CSV file is published (an export link, a data portal's download URL). */
  url: HttpUrl,
  /** The variable holding a bearer token, for files behind one; the request carries no credentials without it. */
  token_env: EnvVarName.optional(),
  notes: z.string().optional(),
});
export type CsvUrlSection = z.output<typeof CsvUrlSection>;

export const csvUrlType = defineSourceType({
  key: 'csv_url', category: 'Files & Storage', authType: 'None', wizard: true, incremental: false,
  section: 'own', schema: CsvUrlSection,
});
