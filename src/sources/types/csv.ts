import path from 'node:path';
import { z } from 'zod';
import { readFiles } from '../file-loader.ts';
import type { SourceLoader } from '../source-loader.ts';
import { FilePattern, NonEmptyString, defineSourceType } from '../type-definition/index.ts';

export const CsvSection = z.strictObject({
  directory: NonEmptyString,
  file_pattern: FilePattern.default('*.csv'),
  notes: z.string().optional(),
});
export type CsvSection = z.output<typeof CsvSection>;

/** `csv`: the folder that uploads through the API land in. */
const csvLoader: SourceLoader = readFiles<CsvSection>((section, projectDir) => ({
  directory: path.resolve(projectDir, section.directory), field: 'directory', pattern: section.file_pattern,
}));

export const csvType = defineSourceType({
  key: 'csv', category: 'Local & Custom', authType: 'None', wizard: false, wizardDisabledReason: 'hidden; use local_files, or filesystem by hand for cloud object storage', incremental: true,
  section: 'own', schema: CsvSection,
  loader: csvLoader,
});
