import { createHash } from 'node:crypto';
import { readProjectFile, type ProjectPaths } from '../../config/index.ts';
import { ConflictError } from '../../errors.ts';

export class SourcesFileChangedError extends ConflictError {
  override readonly code = 'sources_file_changed';
  constructor() {
    super('sources.yml changed since you read it (edited by hand or by someone else); reload and try again');
  }
}

/** What identifies one content of sources.yml: a form sends back the version it read, and a changed file is refused. */
export function sourcesFileVersion(paths: ProjectPaths): string {
  return createHash('sha256').update(readProjectFile(paths.sourcesFile, paths)).digest('hex').slice(0, 16);
}

/** Throws SourcesFileChangedError unless sources.yml is still the one of `expected` (no check without one). */
export function assertSourcesFileUnchanged(paths: ProjectPaths, expected: string | undefined): void {
  if (expected !== undefined && expected !== sourcesFileVersion(paths)) throw new SourcesFileChangedError();
}
