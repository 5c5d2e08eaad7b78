import path from 'node:path';
import { readProjectFile, type ProjectPaths } from '../../config/index.ts';
import { parseSources, type SourceConfig } from './sources-config.ts';

/** Reads and validates `.quarry/sources.yml`. */
export function loadSources(paths: ProjectPaths): readonly SourceConfig[] {
  return parseSources(readProjectFile(paths.sourcesFile, paths), path.relative(paths.root, paths.sourcesFile));
}
