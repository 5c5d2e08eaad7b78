import path from 'node:path';
import { OutsideDataRootsError, type DataRoots, type ProjectPaths } from '../config/index.ts';
import { ConfigError } from '../errors.ts';
import { SOURCE_TYPES, type SourceConfig } from './config/index.ts';
import { fileSourceLocation } from './source-loaders.ts';

/** `local_files.directory: <why>` when the source reads a folder outside the data roots; undefined otherwise. */
function outsideDataRoots(source: SourceConfig, dataRoots: DataRoots, projectDir: string): string | undefined {
  const location = fileSourceLocation(source, projectDir);
  if (location === undefined) return undefined;
  const problem = dataRoots.problemWith(location.directory);
  return problem === undefined ? undefined : `${SOURCE_TYPES[source.type].section}.${location.field}: ${problem}`;
}

/** Throws ConfigError naming each source of sources.yml whose folder lies outside the data roots. */
export function assertSourcesInsideDataRoots(paths: ProjectPaths, dataRoots: DataRoots, sources: readonly SourceConfig[]): void {
  const label = path.relative(paths.root, paths.sourcesFile);
  const problems = sources.flatMap((source, index) => {
    const problem = outsideDataRoots(source, dataRoots, paths.root);
    return problem === undefined ? [] : [`${label}: sources[${String(index)}].${problem}`];
  });
  if (problems.length > 0) throw new ConfigError(problems);
}

/** Throws OutsideDataRootsError (400) when a source about to be saved or tested reads a folder outside the data roots. */
export function assertSourceInsideDataRoots(source: SourceConfig, dataRoots: DataRoots, projectDir: string): void {
  const problem = outsideDataRoots(source, dataRoots, projectDir);
  if (problem !== undefined) throw new OutsideDataRootsError(problem);
}
