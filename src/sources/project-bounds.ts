import type { DataRoots } from '../config/index.ts';
import type { SourceConfig } from './config/index.ts';
import { assertSourceInsideDataRoots } from './data-root-check.ts';
import { PipelineModuleRefusedError, pipelineModuleProblem } from './pipeline-module.ts';

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
