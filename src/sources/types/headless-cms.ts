import { z } from 'zod';
import { bearerAuth, pageNumber, requireEnv, restSourceConnector, type RestResource } from '../rest/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { EnvVarName, HttpUrl, StringList, genericConfig, defineSourceType } from '../type-definition/index.ts';
import { snakeCase } from './snake-case.ts';

export const HeadlessCmsConfig = genericConfig({
  /** Strapi is self-hosted: the server's root, such as https://cms.example.com (without /api). */
  base_url: HttpUrl,
  api_token_env: EnvVarName.default('HEADLESS_CMS_API_TOKEN'),
  /** Collection types by their plural API id (`articles`, `blog-posts`). */
  collections: StringList,
});
export type HeadlessCmsConfig = z.output<typeof HeadlessCmsConfig>;

const PAGE_SIZE = 100;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** `{id, attributes: {...}}` → `{id, ...}`, at any depth. */
function flattenEntry(entry: { id: Json; attributes?: Json }): Json {
  const attributes = flattenStrapi(entry.attributes ?? {});
  return { id: entry.id, ...(isObject(attributes) ? attributes : {}) };
}

/**
 * Strapi v4 wraps each entry as `{id, attributes}` and each populated relation or media field as
 * `{data: entry | entry[] | null}`; both are unwrapped, so a relation reads `author.name`, not
 * `author.data.attributes.name`. Components (plain objects) stay as they are.
 */
function flattenStrapi(value: Json): Json {
  if (Array.isArray(value)) return value.map(flattenStrapi);
  if (!isObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.includes('data') && keys.every((key) => key === 'data' || key === 'meta')) {
    const data = value.data ?? null;
    if (data === null) return null;
    return Array.isArray(data) ? data.map((item) => (isEntry(item) ? flattenEntry(item) : flattenStrapi(item))) : isEntry(data) ? flattenEntry(data) : flattenStrapi(data);
  }
  if (isEntry(value) && keys.length === 2) return flattenEntry(value);
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, flattenStrapi(inner)]));
}

function isObject(value: Json): value is { [key: string]: Json } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isEntry(value: Json): value is { id: Json; attributes: Json } {
  return isObject(value) && 'id' in value && isObject(value.attributes ?? null);
}

function collectionResource(collection: string): RestResource {
  return {
    name: snakeCase(collection),
    path: `/api/${collection}`,
    // A fixed order keeps pages from shifting while they are read.
    params: { 'pagination[pageSize]': PAGE_SIZE, sort: 'id:asc', populate: '*' },
    dataSelector: 'data',
    paginator: pageNumber({ page_param: 'pagination[page]', base_page: 1, total_path: 'meta.pagination.pageCount' }),
    mapRecord: (entry) => flattenEntry(entry as { id: Json; attributes?: Json }) as Record<string, unknown>,
  };
}

/** `headless_cms`: the collection types of a Strapi v4 server through its REST API, with an API token. */
const headlessCmsConnector = restSourceConnector<HeadlessCmsConfig>({
  // Strapi has no shared API root: the section's required base_url always replaces this.
  baseUrl: () => {
    throw new SyncFailedError('A headless_cms source needs base_url, the root of its Strapi server');
  },
  auth: (config, env) => bearerAuth(requireEnv(env, config.api_token_env, 'a Strapi API token')),
  resources: (config) => config.collections.map(collectionResource),
});

export const headlessCmsType = defineSourceType({
  key: 'headless_cms', category: 'Other', authType: 'API Key', wizard: false, wizardDisabledReason: 'untested', incremental: false,
  section: 'generic', schema: HeadlessCmsConfig,
  connector: headlessCmsConnector,
});
