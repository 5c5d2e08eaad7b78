import path from 'node:path';
import type { SourceConfigOf } from '../../config/index.ts';
import { readFiles } from '../file-loader.ts';

/** `csv`: the folder that uploads through the API land in. */
export const csvLoader = readFiles<SourceConfigOf<'csv'>>((source, projectDir) => ({
  directory: path.resolve(projectDir, source.csv.directory), pattern: source.csv.file_pattern,
}));
