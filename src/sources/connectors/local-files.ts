import path from 'node:path';
import type { SourceConfigOf } from '../../config/index.ts';
import { readFiles } from '../file-loader.ts';

/** `local_files`: CSV, JSON and Parquet files in a folder of the project (or anywhere on this machine). */
export const localFilesLoader = readFiles<SourceConfigOf<'local_files'>>((source, projectDir) => ({
  directory: path.resolve(projectDir, source.local_files.directory), pattern: source.local_files.file_pattern, csv: source.local_files.csv,
}));
