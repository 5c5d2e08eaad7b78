import path from 'node:path';
import { z } from 'zod';
import { readFiles } from '../file-loader.ts';
import type { SourceLoader } from '../source-loader.ts';
import { CsvReadOptions, FilePattern, NonEmptyString, defineSourceType } from '../type-definition/index.ts';

export const LocalFilesSection = z.strictObject({
  directory: NonEmptyString,
  file_pattern: FilePattern.default('*'),
  /** DuckDB read_csv options fixed for every CSV file; anything not set is detected per file. */
  csv: CsvReadOptions.optional(),
  /** How to regenerate the files. */
  notes: z.string().optional(),
});
export type LocalFilesSection = z.output<typeof LocalFilesSection>;

/** `local_files`: CSV, JSON and Parquet files in a folder inside one of the project's data roots (data/ by default). */
const localFilesLoader: SourceLoader = readFiles<LocalFilesSection>((section, projectDir) => ({
  directory: path.resolve(projectDir, section.directory), field: 'directory', pattern: section.file_pattern, csv: section.csv,
}));

export const localFilesType = defineSourceType({
  key: 'local_files', category: 'Local & Custom', authType: 'None', wizard: true, incremental: true,
  section: 'own', schema: LocalFilesSection,
  loader: localFilesLoader,
});
