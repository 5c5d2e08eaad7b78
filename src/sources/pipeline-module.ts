import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { InvalidRequestError } from '../errors.ts';

/** The project's folder of pipeline modules, beside `.quarry/`: the only code a native_pipeline source runs. */
export const PIPELINES_FOLDER = 'pipelines';

export class PipelineModuleRefusedError extends InvalidRequestError {
  override readonly code = 'pipeline_module_refused';
}

/**
 * Why `moduleName` is not a module of the project's pipelines folder, or undefined when its top-level package
 * (`erp/__init__.py`, which Python prefers) or file (`erp.py`) is there once symlinks are followed. Python's own
 * modules and installed packages are refused by name when the pipeline starts, where Python knows them.
 */
export function pipelineModuleProblem(moduleName: string, projectDir: string): string | undefined {
  const topLevel = moduleName.split('.')[0] ?? moduleName;
  const candidates = [path.join(topLevel, '__init__.py'), `${topLevel}.py`];
  const advice = `a native_pipeline runs only modules of the project's ${PIPELINES_FOLDER}/ folder: put it in ${PIPELINES_FOLDER}/${candidates[1] ?? ''} or ${PIPELINES_FOLDER}/${candidates[0] ?? ''}`;
  const root = realPathOrUndefined(path.join(projectDir, PIPELINES_FOLDER));
  if (root === undefined) return `source_module ${moduleName}: the project has no ${PIPELINES_FOLDER}/ folder; ${advice}`;
  for (const candidate of candidates) {
    const real = realPathOrUndefined(path.join(root, candidate));
    if (real === undefined || !statSync(real).isFile()) continue;
    if (!isInside(real, root)) return `source_module ${moduleName}: ${PIPELINES_FOLDER}/${candidate} leads outside the ${PIPELINES_FOLDER}/ folder`;
    return undefined;
  }
  return `source_module ${moduleName} is not a module of the project: ${advice}`;
}

function realPathOrUndefined(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

function isInside(file: string, folder: string): boolean {
  const relative = path.relative(folder, file);
  return relative !== '' && relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}
