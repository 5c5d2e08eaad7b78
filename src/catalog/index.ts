export { QueryService, type QueryServiceOptions, type QueryCaller, type QueryRequest } from './query-service.ts';
