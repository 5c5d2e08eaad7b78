import type { SourceConfig } from './config/index.ts';
import { extractThenLoad } from './connector-loader.ts';
import type { FileLocation, SourceLoader } from './source-loader.ts';
import { SOURCE_TYPE_DEFINITIONS } from './types/index.ts';

/**
 * The loader of every type sources.yml accepts, derived from the type list: the type's own loader (files read
 * by DuckDB), or its connector's extraction loaded from staging.
 */
const LOADERS: ReadonlyMap<string, SourceLoader> = new Map(SOURCE_TYPE_DEFINITIONS.flatMap((definition) => {
  if (definition.refused) return [];
  return [[definition.key, definition.loader ?? extractThenLoad(definition.connector)]];
}));

/** The loader of the source's type. */
export function loaderFor(source: SourceConfig): SourceLoader {
  const loader = LOADERS.get(source.type);
  // sources.yml accepts only types with a definition, and every definition has a connector or a loader.
  if (loader === undefined) throw new Error(`No loader for source type ${source.type}`);
  return loader;
}

/** The object storage prefix a file source reads (`s3://bucket/folder`), or undefined for every other source. */
export function sourceObjectsPrefix(source: SourceConfig, projectDir: string): string | undefined {
  return loaderFor(source).objectsPrefix(source, projectDir);
}

/** Where a file source's files live, or undefined for sources of other kinds (and for files in object storage). */
export function fileSourceLocation(source: SourceConfig, projectDir: string): FileLocation | undefined {
  return loaderFor(source).fileLocation(source, projectDir);
}
