import type { AuthType } from '../type-definition/index.ts';

/**
 * The words a person reads beside each field of a source's section, instead of its sources.yml name: by type and
 * field where a type means something of its own, else by field name, else the name made readable
 * (`start_date` → "Start date"). A credential field (`*_env`) is labelled by what it holds.
 */
const BY_TYPE: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  local_files: { directory: 'Folder', csv: 'CSV reading options' },
  csv: { directory: 'Folder' },
  filesystem: {
    bucket_url: 'Bucket or folder', endpoint: 'Endpoint', url_style: 'Bucket in the', use_ssl: 'Use HTTPS',
    access_key_id_env: 'Access key ID', secret_access_key_env: 'Secret access key', credentials_env: 'Azure connection string',
  },
  rest_api: { auth_token_env: 'Token or key' },
  code_host: { owner: 'Repository owner', name: 'Repository name' },
  search_ads: { property_id: 'Customer ID' },
  payments: { endpoints: 'Objects to load' },
  document_db: { incremental: 'Cursor field per collection' },
  relational_db: { incremental: 'Cursor column per table' },
  inbox: { tls: 'Use TLS' },
};

const BY_NAME: Readonly<Record<string, string>> = {
  base_url: 'Base URL',
  file_pattern: 'Files to read (pattern)',
  auth_type: 'Authentication',
  api_key_name: 'Key name',
  api_key_location: 'Key goes in',
  basic_username_env: 'User name',
  basic_password_env: 'Password',
  access_token_url: 'Token URL',
  client_id_env: 'Client ID',
  client_secret_env: 'Client secret',
  auth_header_name: 'Header name',
  headers: 'Extra headers',
  timeout_seconds: 'Timeout (seconds)',
  concurrency: 'Requests at once',
  source_module: 'Module',
  source_function: 'Function',
  function_kwargs: 'Function arguments',
  spreadsheet_url_or_id: 'Spreadsheet URL or ID',
  range_names: 'Sheets',
  initial_load_past_days: 'Days loaded on the first sync',
  selected_channels: 'Channels',
  page_size: 'Page size',
  batch_size: 'Batch size',
  max_messages: 'Most messages per sync',
  credentials_env: 'Credentials',
  payments_secret_key_env: 'Secret key',
  developer_token_env: 'Developer token',
  token_auth_env: 'Token',
  username_env: 'User name',
  password_env: 'Password',
  // Parts of a rest_api endpoint.
  path: 'Path',
  params: 'Query parameters',
  data_selector: 'Where the records are',
  primary_key: 'Primary key',
  table_name: 'Table name',
};

/** Words written in capitals or a product's own spelling wherever they appear in a field name. */
const WORDS: Readonly<Record<string, string>> = {
  url: 'URL', id: 'ID', ids: 'IDs', gids: 'GIDs', api: 'API', csv: 'CSV', json: 'JSON', tls: 'TLS', jql: 'JQL', oauth2: 'OAuth2',
};

function readable(field: string): string {
  const words = field.replace(/_env$/, '').split('_').filter((word) => word !== '').map((word) => WORDS[word] ?? word);
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The label of `field` of `type`'s section (or of one of its list items). */
export function fieldLabel(type: string, field: string): string {
  return BY_TYPE[type]?.[field] ?? BY_NAME[field] ?? readable(field);
}

const OPTIONS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  auth_type: {
    bearer: 'a bearer token', api_key: 'an API key', basic: 'a user name and password', oauth2_client_credentials: 'OAuth2 client credentials',
    custom_header: 'a token in a header of its own', none: 'nothing (a public API)',
  },
  api_key_location: { header: 'a header', query: 'the query string' },
  deduplication: { none: 'keep every row', latest_only: 'latest version only', append_only: 'append only', scd_type2: 'full history (SCD type 2)' },
  url_style: { path: 'path (https://host/bucket/key)', vhost: 'host name (https://bucket.host/key)' },
};

/** How a choice's option reads, or undefined for an option shown as it is written. */
export function optionLabel(field: string, option: string): string | undefined {
  return OPTIONS[field]?.[option];
}

const SIGN_IN: Readonly<Record<AuthType, string>> = {
  None: 'nothing (no credentials)',
  'API Key': 'an API key or token, kept in an environment variable',
  OAuth: 'OAuth: access granted once with quarry oauth setup, or a token kept in an environment variable',
  Basic: 'a user name and a password or token, kept in environment variables',
  'Service Account': 'a service account’s JSON key, kept in an environment variable',
};

/** Types that sign in otherwise than their spec's auth type says: a bucket's keys are fields of the section. */
const SIGN_IN_BY_TYPE: Readonly<Record<string, string>> = {
  filesystem: 'an access key id and secret access key, kept in environment variables (nothing for a public bucket or a local folder)',
};

/** What a type signs in with, in words; null (no registry entry) reads as nothing. */
export function signInOf(authType: AuthType | null, type?: string): string {
  return (type === undefined ? undefined : SIGN_IN_BY_TYPE[type]) ?? SIGN_IN[authType ?? 'None'];
}

/** Optional fields few sources need: the form keeps them under "More settings", so the usual ones stand out. */
const ADVANCED = new Set([
  'base_url', 'headers', 'timeout_seconds', 'concurrency', 'csv', 'notes', 'api_version', 'page_size', 'batch_size', 'max_messages',
  'pipeline_name', 'dataset_name', 'params', 'paginator', 'incremental', 'table_name', 'max_pages',
]);

/** Fields few sources of one type need, beyond those of every type. */
const ADVANCED_BY_TYPE: Readonly<Record<string, ReadonlySet<string>>> = {
  filesystem: new Set(['credentials_env']),
};

/** Whether an optional field of `type` is one few sources set (a required one never is). */
export function isAdvanced(type: string, field: string, required: boolean): boolean {
  return !required && (ADVANCED.has(field) || ADVANCED_BY_TYPE[type]?.has(field) === true);
}
