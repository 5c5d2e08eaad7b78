import { z } from 'zod';
import { EnvVarName, HttpUrl, NonEmptyString, SourceName } from './field-types.ts';
import { refuseSecretLiterals } from './secret-literal.ts';

export const REST_API_AUTH_TYPES = ['bearer', 'api_key', 'basic', 'oauth2_client_credentials', 'custom_header', 'none'] as const;
export type RestApiAuthType = (typeof REST_API_AUTH_TYPES)[number];

const QueryValue = z.union([z.string(), z.number(), z.boolean()], {
  error: 'expected a string, number or boolean',
});

const Paginator = z.union([NonEmptyString, z.looseObject({ type: NonEmptyString })], {
  error: 'expected a paginator name or a mapping with a type field',
});

const PrimaryKey = z.union([NonEmptyString, z.array(NonEmptyString).min(1)], {
  error: 'expected a column name or a list of column names',
});

const EndpointIncremental = z.strictObject({
  /** Where the cursor value sits in each record, such as `updated_at`. */
  cursor_path: NonEmptyString,
  /** The query parameter that receives the last cursor value. */
  param: NonEmptyString,
  initial_value: z.union([z.string(), z.number()], {
    error: 'expected a string or a number',
  }).optional(),
});

const Endpoint = z.strictObject({
  path: NonEmptyString,
  params: z.record(z.string(), QueryValue).optional(),
  data_selector: NonEmptyString.optional(),
  paginator: Paginator.optional(),
  primary_key: PrimaryKey.optional(),
  incremental: EndpointIncremental.optional(),
  table_name: SourceName.optional(),
  /** A guard against an API that pages forever. */
  max_pages: z.int().min(1).optional(),
});
export type RestApiEndpoint = z.output<typeof Endpoint>;

/** The table an endpoint loads into: `table_name`, else the path's last word (`/v1/users/` → users). */
export function endpointTableName(endpoint: Pick<RestApiEndpoint, 'path' | 'table_name'>): string {
  if (endpoint.table_name !== undefined) return endpoint.table_name;
  const words = endpoint.path.split('?')[0]?.split('/').filter((word) => word !== '' && !word.includes('{')) ?? [];
  const last = (words.at(-1) ?? 'records').toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^[^a-z]+/, '');
  return last === '' ? 'records' : last;
}


/** The fields each auth type cannot work without; bearer without a token sends no credentials, as a public API needs. */
const REQUIRED_AUTH_FIELDS: Readonly<Record<RestApiAuthType, readonly string[]>> = {
  bearer: [],
  api_key: ['auth_token_env', 'api_key_name'],
  basic: ['basic_username_env', 'basic_password_env'],
  oauth2_client_credentials: ['access_token_url', 'client_id_env', 'client_secret_env'],
  custom_header: ['auth_token_env', 'auth_header_name'],
  none: [],
};

export const RestApiSection = z.strictObject({
  base_url: HttpUrl,
  endpoints: z.array(Endpoint).min(1),
  auth_type: z.enum(REST_API_AUTH_TYPES).default('bearer'),
  auth_token_env: EnvVarName.optional(),
  api_key_name: NonEmptyString.optional(),
  api_key_location: z.enum(['header', 'query']).optional(),
  basic_username_env: EnvVarName.optional(),
  basic_password_env: EnvVarName.optional(),
  access_token_url: HttpUrl.optional(),
  client_id_env: EnvVarName.optional(),
  client_secret_env: EnvVarName.optional(),
  auth_header_name: NonEmptyString.optional(),
  /** Extra request headers; a credential goes in as `env:NAME` (or through auth_type and its *_env fields). */
  headers: z.record(NonEmptyString, z.string()).superRefine((headers, context) => {
    refuseSecretLiterals(headers, context, 'use auth_type with auth_token_env, or keep it in an environment variable and write env:NAME here');
  }).optional(),
  /** How long one request may take before it is abandoned and retried (default 30). */
  timeout_seconds: z.int().min(1).max(600).optional(),
  /**
   * How many requests of one endpoint may be in flight: with a page_number or offset paginator the next pages are
   * fetched while one is written (cursor and link paginators need each answer first). 1 reads page by page; 4 when absent.
   */
  concurrency: z.int().min(1).max(16).optional(),
}).superRefine((section, context) => {
  // Two endpoints in one table would mix their rows and overwrite each other's cursor.
  const firstByTable = new Map<string, number>();
  section.endpoints.forEach((endpoint, index) => {
    const table = endpointTableName(endpoint);
    const first = firstByTable.get(table);
    if (first === undefined) firstByTable.set(table, index);
    else context.addIssue({ code: 'custom', path: ['endpoints', index, 'table_name'], input: endpoint.table_name, message: `endpoints[${String(first)}] loads into the table ${table} too; give one of them its own table_name` });
  });
  const fields: Readonly<Record<string, unknown>> = section;
  for (const field of REQUIRED_AUTH_FIELDS[section.auth_type]) {
    if (fields[field] === undefined) {
      context.addIssue({ code: 'custom', path: [field], input: undefined, message: `required when auth_type is ${section.auth_type}` });
    }
  }
});
export type RestApiSection = z.output<typeof RestApiSection>;
