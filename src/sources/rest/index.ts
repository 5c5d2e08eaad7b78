/** The REST connector toolkit: what a vendor definition in sources/connectors/ builds on. */
export { restSourceConnector, openRestSession, extractLogged, sectionOf, type RestSourceDefinition, type RestSession } from './rest-source.ts';
export { extractResource, type RestResource, type ResourceContext, type IncrementalSpec, type QueryValue } from './extract-resource.ts';
export {
  basicAuth, bearerAuth, headerAuth, noAuth, oauthTokenAuth, queryAuth, type AuthStrategy, type TokenGrant,
} from './auth.ts';
export { requireEnv } from './credentials.ts';
export { HttpClient, HttpStatusError, describeUrl, type HttpRequest, type HttpResponse } from './http-client.ts';
export {
  headerLink, jsonLink, cursorParam, offsetParam, pageNumber, singlePage, withParam, type Paginator, type PaginatorSpec,
} from './paginators.ts';
export { valueAt } from './json-path.ts';
