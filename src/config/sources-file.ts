import path from 'node:path';
import type { ProjectPaths } from './project-paths.ts';
import { readProjectFile } from './project-files.ts';
import { parseSources, type SourceConfig } from './sources-config.ts';

/** Reads and validates `.quarry/sources.yml`. */
export function loadSources(paths: ProjectPaths): readonly SourceConfig[] {
  return parseSources(readProjectFile(paths.sourcesFile, paths), path.relative(paths.root, paths.sourcesFile));
}
