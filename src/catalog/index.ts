export { QueryService, type QueryServiceOptions, type QueryCaller, type QueryRequest } from './query-service.ts';
export { TableProfiler, type TableProfilerOptions } from './table-profiler.ts';
export { profileAfterDeploymentJobs } from './profile-after-deployment-jobs.ts';
export { Catalog, TableNotFoundError, type CatalogOptions, type TableSummary, type TableDetail, type SearchHit } from './catalog.ts';
export { spreadsheetSafeRows, spreadsheetSafeText } from './spreadsheet-safe.ts';
