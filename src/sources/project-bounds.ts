import path from 'node:path';
import type { DataRoots, ProjectPaths } from '../config/index.ts';
import { ConfigError } from '../errors.ts';
import type { SourceConfig } from './config/index.ts';
import { assertSourceInsideDataRoots, outsideDataRoots } from './data-root-check.ts';
import { PipelineModuleRefusedError, pipelineModuleProblem } from './pipeline-module.ts';

/**
 * Throws ConfigError naming each source of sources.yml (a hand edit included) that reads a folder outside the data
 * roots. A pipeline module is checked before each sync instead (and by the runner): its file may be written,
 * renamed or linked elsewhere at any time after sources.yml was read, and one source's module stops no other part.
 */
export function assertSourcesWithinProject(paths: ProjectPaths, dataRoots: DataRoots, sources: readonly SourceConfig[]): void {
  const label = path.relative(paths.root, paths.sourcesFile);
  const problems = sources.flatMap((source, index) => {
    const problem = outsideDataRoots(source, dataRoots, paths.root);
    return problem === undefined ? [] : [`${label}: sources[${String(index)}].${problem}`];
  });
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
