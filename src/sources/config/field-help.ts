/**
 * One line of help beside each field of a source's section, from the Notes of the spec's type tables (2.8):
 * by type and field where the spec says something of that type, else by field name alone.
 */
const BY_TYPE: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  local_files: {
    directory: 'A folder inside the data roots (data/ unless project.yml says otherwise), relative to the project. Saving creates it if it does not exist; then upload CSV files into it, or put CSV, JSON, JSONL, Parquet or Excel (.xlsx) files there yourself. They load into one raw table.',
    file_pattern: 'A glob choosing the files, e.g. *.csv.',
    notes: 'How to regenerate the files, for whoever reads this later.',
  },
  filesystem: {
    bucket_url: 'A bucket and folder: s3://bucket/folder (S3 or a server compatible with it), gs://bucket/folder (Google Cloud Storage, with HMAC keys), az://container/folder (Azure Blob Storage); or a folder inside the data roots.',
    file_pattern: 'A glob over the keys under the folder, e.g. **/*.parquet; every CSV, JSON, JSONL, Parquet and Excel (.xlsx) file by default.',
    endpoint: 'host:port of an S3-compatible server, without https://; blank for AWS.',
    region: 'The bucket’s region; blank for us-east-1.',
    url_style: 'path for most self-hosted servers (MinIO, SeaweedFS, Ceph); vhost (the default) for AWS.',
    use_ssl: 'Off only for plain HTTP to a server on a private network.',
    access_key_id_env: 'The environment variable holding the access key id; blank for a public bucket.',
    secret_access_key_env: 'The environment variable holding the secret access key; its value is written to .env only.',
    credentials_env: 'For az:// (Azure Blob Storage): the environment variable holding its connection string; s3:// and gs:// keys go in Access key ID and Secret access key.',
    notes: 'How the files get there, for whoever reads this later.',
  },
  rest_api: {
    base_url: 'The API root every endpoint path is relative to.',
    endpoints: 'Each endpoint loads into a table of its own: a path and, optionally, where its records sit and a primary key.',
    path: 'Relative to the base URL, e.g. /orders.',
    params: 'Query parameters sent with every request of this endpoint.',
    data_selector: 'Where the records sit in the answer, e.g. data or results.items; blank finds them.',
    primary_key: 'The column identifying a record (several: comma-separated); blank replaces the table on each sync.',
    paginator: 'How to get the next page: auto (blank), header_link, json_link, cursor, offset, page_number or single_page.',
    incremental: 'cursor_path (the field in each record) and param (the query parameter receiving the highest value seen).',
    table_name: 'Defaults to the last word of the path.',
    max_pages: 'A guard against an API that pages forever.',
    auth_type: 'How requests sign in; the fields it needs appear below.',
    auth_token_env: 'The environment variable holding the token or key.',
    api_key_name: 'The header or query parameter name the key is sent in.',
    api_key_location: 'Whether the key goes in a header or the query string.',
    basic_username_env: 'The environment variable holding the user name.',
    basic_password_env: 'The environment variable holding the password.',
    access_token_url: 'The OAuth2 token endpoint.',
    client_id_env: 'The environment variable holding the OAuth2 client id.',
    client_secret_env: 'The environment variable holding the OAuth2 client secret.',
    auth_header_name: 'The name of the custom header carrying the token.',
    headers: 'Extra request headers; a value may be env:<VAR_NAME> to read a variable.',
  },
  native_pipeline: {
    source_module: "A module of the project's pipelines/ folder: erp for pipelines/erp.py or pipelines/erp/__init__.py, erp.orders for a module inside.",
    source_function: 'The function to call.',
    function_kwargs: 'Arguments for the function; a value may be env:<VAR_NAME>.',
    pipeline_name: 'Defaults to the source name.',
    dataset_name: 'Defaults to the source name.',
  },
  spreadsheets: {
    spreadsheet_url_or_id: 'The spreadsheet’s address or id; sign in first with quarry oauth setup.',
    range_names: 'Sheet or tab names.',
  },
  social_ads: {
    account_id: 'The ads account id, including the platform’s account prefix.',
    initial_load_past_days: 'Days loaded on the first sync.',
  },
  web_analytics: { start_date: 'YYYY-MM-DD, or relative such as 90daysAgo.' },
  search_ads: { property_id: 'The ads customer id.' },
  code_host: { owner: 'The repository’s owner.', name: 'The repository name.' },
  team_chat: { selected_channels: 'Channel ids, comma-separated; blank reads them all.' },
  payments: { endpoints: 'The objects to load; all by default.' },
  helpdesk_a: { subdomain: 'Your helpdesk subdomain.', email: 'The email of the account the token belongs to.' },
};

const BY_NAME: Readonly<Record<string, string>> = {
  base_url: 'Replaces the vendor’s API address (for a proxy or a test server); blank keeps the vendor’s.',
  start_date: 'YYYY-MM-DD; blank loads from the beginning.',
  end_date: 'YYYY-MM-DD; blank loads up to today.',
  resources: 'The resources to load.',
  deduplication: 'How re-read rows are kept: none, latest only, appended, or as history (SCD type 2).',
  timeout_seconds: 'How long one request may take.',
  concurrency: 'How many requests run at once.',
  url: 'The address of the file.',
};

/** The help line for `field` of `type`'s section; a credential field says where its value goes when none is written. */
export function fieldHelp(type: string, field: string): string {
  const help = BY_TYPE[type]?.[field] ?? BY_NAME[field];
  if (help !== undefined) return help;
  if (field.endsWith('_env')) return 'The environment variable holding it; its value is written to .env only.';
  return '';
}
