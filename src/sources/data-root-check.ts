import { OutsideDataRootsError, type DataRoots } from '../config/index.ts';
import { SOURCE_TYPES, type SourceConfig } from './config/index.ts';
import { fileSourceLocation } from './source-loaders.ts';

/** `local_files.directory: <why>` when the source reads a folder outside the data roots; undefined otherwise. */
export function outsideDataRoots(source: SourceConfig, dataRoots: DataRoots, projectDir: string): string | undefined {
  const location = fileSourceLocation(source, projectDir);
  if (location === undefined) return undefined;
  const problem = dataRoots.problemWith(location.directory);
  return problem === undefined ? undefined : `${SOURCE_TYPES[source.type].section}.${location.field}: ${problem}`;
}

/** Throws OutsideDataRootsError (400) when a source about to be saved or tested reads a folder outside the data roots. */
export function assertSourceInsideDataRoots(source: SourceConfig, dataRoots: DataRoots, projectDir: string): void {
  const problem = outsideDataRoots(source, dataRoots, projectDir);
  if (problem !== undefined) throw new OutsideDataRootsError(problem);
}
