export { TransformRunner, type TransformRunnerOptions, type ModelSummary, type TestSummary, type RunReport } from './transform-runner.ts';
export { ModelNotFoundError, RunInProgressError, RunNotFoundError, DocsGenerationError } from './errors.ts';
export { ensureDbtProject, DBT_PROJECT_NAME } from './dbt-project.ts';
export { writeStagingModels, stagingModelName, type RawTable } from './staging-models.ts';
export { DocsServer, startDocsServer, type DocsServerStatus } from './docs-server.ts';
export { docsSiteDir, docsSiteScriptHashes } from './docs-site.ts';
export type { NodeProgress } from './dbt-worker.ts';
export { DBT_COMMANDS, type DbtCommand } from './model-run.ts';
