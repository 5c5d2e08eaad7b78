import path from 'node:path';
import type { DataRoots, ProjectPaths } from '../config/index.ts';
import { ConfigError } from '../errors.ts';
import { SOURCE_TYPES, type SourceConfig } from './config/index.ts';
import { assertSourceInsideDataRoots, outsideDataRoots } from './data-root-check.ts';
import { PipelineModuleRefusedError, pipelineModuleEscape, pipelineModuleProblem } from './pipeline-module.ts';

/** `native_pipeline: source_module <why>` when the source's module leads outside the project's pipelines folder. */
function pipelineOutsideProject(source: SourceConfig, projectDir: string): string | undefined {
  if (source.type !== 'native_pipeline') return undefined;
  const problem = pipelineModuleEscape(source.native_pipeline.source_module, projectDir);
  return problem === undefined ? undefined : `${SOURCE_TYPES[source.type].section}: ${problem}`;
}

/**
 * Throws ConfigError naming each source of sources.yml (a hand edit included) that reaches outside what the
 * project gives it: a folder outside the data roots, or a pipeline module leading outside the pipelines folder.
 * Syncs check again before they run (a module missing included), as either may change after the file was read.
 */
export function assertSourcesWithinProject(paths: ProjectPaths, dataRoots: DataRoots, sources: readonly SourceConfig[]): void {
  const label = path.relative(paths.root, paths.sourcesFile);
  const problems = sources.flatMap((source, index) => [outsideDataRoots(source, dataRoots, paths.root), pipelineOutsideProject(source, paths.root)]
    .filter((problem) => problem !== undefined)
    .map((problem) => `${label}: sources[${String(index)}].${problem}`));
  if (problems.length > 0) throw new ConfigError(problems);
}

/**
 * Throws a 400 error when a source about to be saved or tested reaches outside what the project gives it:
 * a folder outside the data roots, or a pipeline module outside the project's pipelines folder.
 */
export function assertSourceWithinProject(source: SourceConfig, dataRoots: DataRoots, projectDir: string): void {
  assertSourceInsideDataRoots(source, dataRoots, projectDir);
  if (source.type !== 'native_pipeline') return;
  const problem = pipelineModuleProblem(source.native_pipeline.source_module, projectDir);
  if (problem !== undefined) throw new PipelineModuleRefusedError(problem);
}
