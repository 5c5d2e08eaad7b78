import { ENV_REFERENCE_PREFIX, endpointTableName, isEnvReference, type RestApiEndpoint, type RestApiSection } from '../type-definition/index.ts';
import { basicAuth, bearerAuth, headerAuth, noAuth, oauthTokenAuth, queryAuth, type AuthStrategy } from './auth.ts';
import { requireEnv } from './credentials.ts';
import type { DateWindow } from '../date-window.ts';
import { endOfDay, isWithin, startOfDay, unixSecondsOf } from './date-range.ts';
import type { RestResource } from './extract-resource.ts';
import type { HttpClient } from './http-client.ts';
import { parsePaginatorSpec } from './paginators.ts';
import { restSourceConnector } from './rest-source.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** Requests in flight per endpoint unless the section says otherwise: enough to hide a page's round trip, few enough for any API. */
const DEFAULT_CONCURRENCY = 4;

/** The section's credentials, and its `env:NAME` headers with their values from the environment. */
function restApiAuth(section: RestApiSection, env: Env, http: HttpClient): AuthStrategy {
  const credentials = credentialAuth(section, env, http);
  const envHeaders = Object.entries(section.headers ?? {}).filter(([, value]) => isEnvReference(value))
    .map(([name, value]) => headerAuth(name, requireEnv(env, value.slice(ENV_REFERENCE_PREFIX.length), `the ${name} header`)));
  if (envHeaders.length === 0) return credentials;
  return {
    async apply(request) {
      for (const header of envHeaders) await header.apply(request);
      await credentials.apply(request);
    },
    refresh: () => credentials.refresh?.() ?? false,
  };
}

function credentialAuth(section: RestApiSection, env: Env, http: HttpClient): AuthStrategy {
  const secret = (name: string | undefined, holds: string): string => requireEnv(env, name ?? '', holds);
  switch (section.auth_type) {
    case 'none': return noAuth;
    case 'bearer':
      return section.auth_token_env === undefined ? noAuth : bearerAuth(secret(section.auth_token_env, 'the API token'));
    case 'api_key': {
      const key = secret(section.auth_token_env, 'the API key');
      const name = section.api_key_name ?? 'X-API-Key';
      return section.api_key_location === 'query' ? queryAuth(name, key) : headerAuth(name, key);
    }
    case 'basic':
      return basicAuth(secret(section.basic_username_env, 'the user name'), secret(section.basic_password_env, 'the password'));
    case 'custom_header':
      return headerAuth(section.auth_header_name ?? 'Authorization', secret(section.auth_token_env, 'the token'));
    case 'oauth2_client_credentials':
      return oauthTokenAuth({
        tokenUrl: section.access_token_url ?? '',
        form: { grant_type: 'client_credentials' },
        basic: { clientId: secret(section.client_id_env, 'the OAuth client id'), clientSecret: secret(section.client_secret_env, 'the OAuth client secret') },
      }, http);
  }
}

/**
 * A backfill reads an incremental endpoint from the window's first moment, as if the cursor were saved there, and
 * keeps the records whose cursor falls within the window (the API takes no upper bound); the others are not read.
 */
function windowed(resource: RestResource, window: DateWindow): RestResource | undefined {
  const incremental = resource.incremental;
  if (incremental === undefined) return undefined;
  const to = endOfDay(window.until);
  // Written as the configured initial_value is: unix seconds for an API that counts them, else ISO text.
  const since = typeof incremental.initialValue === 'number' ? unixSecondsOf(window.since) : startOfDay(window.since).toISOString();
  return { ...resource, incremental: { ...incremental, initialValue: since }, keep: (record) => isWithin(record, incremental.cursorPath, { to }) };
}

function endpointResource(endpoint: RestApiEndpoint, section: RestApiSection): RestResource {
  const name = endpointTableName(endpoint);
  const incremental = endpoint.incremental;
  return {
    name,
    path: endpoint.path,
    params: endpoint.params,
    headers: Object.fromEntries(Object.entries(section.headers ?? {}).filter(([, value]) => !isEnvReference(value))),
    dataSelector: endpoint.data_selector,
    paginator: endpoint.paginator === undefined ? undefined : parsePaginatorSpec(endpoint.paginator, `endpoint ${endpoint.path}`),
    primaryKey: endpoint.primary_key === undefined ? undefined : [endpoint.primary_key].flat(),
    incremental: incremental === undefined ? undefined : {
      cursorPath: incremental.cursor_path, param: incremental.param, initialValue: incremental.initial_value,
    },
    maxPages: endpoint.max_pages,
  };
}

/** `rest_api`: any JSON API described in sources.yml, one table per endpoint. */
export const restApiConnector = restSourceConnector<RestApiSection>({
  baseUrl: (section) => section.base_url,
  auth: restApiAuth,
  concurrency: (section) => section.concurrency ?? DEFAULT_CONCURRENCY,
  resources: (section, { window }) => {
    const resources = section.endpoints.map((endpoint) => endpointResource(endpoint, section));
    return window === undefined ? resources : resources.flatMap((resource) => windowed(resource, window) ?? []);
  },
});
