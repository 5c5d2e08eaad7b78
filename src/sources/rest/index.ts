export { restSourceConnector, restSessionConnector, sectionOf, type RestSession } from './rest-source.ts';
export type { IncrementalSpec, RestResource } from './extract-resource.ts';
export { basicAuth, bearerAuth, headerAuth, noAuth, oauthTokenAuth, queryAuth, type AuthStrategy } from './auth.ts';
export { requireEnv } from './credentials.ts';
export { describeUrl, type HttpRequest, type HttpResponse } from './http-client.ts';
export { cursorParam, headerLink, pageNumber, singlePage, type Paginator } from './paginators.ts';
export { bodyCursor } from './body-cursor.ts';
export { valueAt } from './json-path.ts';
