import path from 'node:path';
import type { ProjectPaths } from '../config/index.ts';
import type { Logger } from '../logger.ts';
import { pythonExecutable } from '../python/index.ts';
import { docsSiteDir } from './docs-site.ts';
import { DocsServer } from './docs-server.ts';
import { describeError } from '../errors.ts';

export { TransformRunner, type TransformRunnerOptions, type ModelSummary } from './transform-runner.ts';
export { ModelNotFoundError, RunInProgressError, DocsGenerationError } from './errors.ts';
export { ensureDbtProject, DBT_PROJECT_NAME } from './dbt-project.ts';
export { writeStagingModels, stagingModelName, type RawTable } from './staging-models.ts';
export { DocsServer, type DocsServerStatus } from './docs-server.ts';
export { docsSiteDir, docsSiteContentSecurityPolicy } from './docs-site.ts';

/** Starts the docs site's upstream over the project's published docs site; undefined (logged) when the dbt environment is missing. */
export function startDocsServer(options: {
  paths: ProjectPaths; log: Logger; pythonEnvironmentsDir?: string;
}): DocsServer | undefined {
  let python: string;
  try {
    python = pythonExecutable('dbt', options.pythonEnvironmentsDir);
  } catch (error) {
    options.log.error({ reason: describeError(error) }, 'the transformation-docs site is unavailable');
    return undefined;
  }
  const server = new DocsServer({
    python, directory: docsSiteDir(options.paths), socketPath: path.join(options.paths.runDir, 'docs.sock'), log: options.log,
  });
  server.start();
  return server;
}

