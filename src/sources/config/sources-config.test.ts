import { describe, it, expect } from 'vitest';
import { ConfigError } from '../../errors.ts';
import { defaultSourcesYaml, parseSources, serializeSources, stagingColumnNamesOf, type SourceConfig } from './sources-config.ts';
import { AUTH_TYPES, CATEGORIES, SOURCE_TYPE_KEYS, SOURCE_TYPES } from './source-types.ts';

function problemsOf(yamlText: string, label?: string): readonly string[] {
  let caught: unknown;
  try {
    parseSources(yamlText, label);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  return (caught as ConfigError).problems;
}

function onlySource(yamlText: string): SourceConfig {
  const sources = parseSources(yamlText);
  expect(sources).toHaveLength(1);
  return sources[0]!;
}

describe('parseSources on broken files', () => {
  it('reports a YAML syntax error with its line and column', () => {
    expect(problemsOf('sources:\n  - name: orders\n    type: [local_files\n')).toEqual([
      'sources.yml: line 4, column 1: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
  });

  it('reports a key written twice in one mapping, under the label it is given', () => {
    expect(problemsOf('sources:\n  - name: orders\n    name: sales\n', '.quarry/sources.yml')).toEqual([
      '.quarry/sources.yml: line 3, column 5: Map keys must be unique',
    ]);
  });

  it('refuses a top level that is not a mapping', () => {
    expect(problemsOf('- name: orders\n  type: local_files\n')).toEqual([
      'sources.yml: (top level): expected a mapping with a sources: list, got list',
    ]);
    expect(problemsOf('just some text\n')).toEqual([
      'sources.yml: (top level): expected a mapping with a sources: list, got string',
    ]);
  });

  it('refuses sources that is not a list and fields beside it', () => {
    expect(problemsOf('version: 2\nsources:\n  orders:\n    type: local_files\n')).toEqual([
      'sources.yml: (top level): unknown field version',
      'sources.yml: sources: expected list, got mapping',
    ]);
  });

  it('refuses list items that are not mappings', () => {
    expect(problemsOf('sources:\n  - orders\n  - [a, b]\n')).toEqual([
      'sources.yml: sources[0]: expected mapping, got string',
      'sources.yml: sources[1]: expected mapping, got list',
    ]);
  });

  it('requires a name and a type', () => {
    expect(problemsOf('sources:\n  - enabled: true\n')).toEqual([
      'sources.yml: sources[0].name: required',
      'sources.yml: sources[0].type: required',
    ]);
  });

  it('refuses ill-formed names', () => {
    const longName = `a${'b'.repeat(63)}`;
    expect(problemsOf(`sources:
  - name: Orders
    type: csv
    csv: {directory: data}
  - name: 2024_orders
    type: csv
    csv: {directory: data}
  - name: ${longName}
    type: csv
    csv: {directory: data}
  - name: 42
    type: csv
    csv: {directory: data}
`)).toEqual([
      'sources.yml: sources[0].name: "Orders" is not a valid name: use lowercase letters, digits and underscores, starting with a letter',
      'sources.yml: sources[1].name: "2024_orders" is not a valid name: use lowercase letters, digits and underscores, starting with a letter',
      'sources.yml: sources[2].name: must have at most 63 characters',
      'sources.yml: sources[3].name: expected string, got number',
    ]);
  });

  it('refuses an unknown type and names the close match', () => {
    expect(problemsOf(`sources:
  - name: api
    type: rest-api
    rest_api: {base_url: "https://api.example.com", endpoints: [{path: /users}]}
  - name: files
    type: LocalFiles
  - name: mystery
    type: mainframe
  - name: numbered
    type: 7
`)).toEqual([
      'sources.yml: sources[0].type: unknown source type "rest-api"; did you mean rest_api?',
      'sources.yml: sources[1].type: unknown source type "LocalFiles"; did you mean local_files?',
      'sources.yml: sources[2].type: unknown source type "mainframe"',
      'sources.yml: sources[3].type: expected string, got number',
    ]);
  });

  it('refuses sql_database and web_scraper with the reason', () => {
    expect(problemsOf(`sources:
  - name: legacy
    type: sql_database
    generic_config: {credentials_env: LEGACY_DB_URL}
  - name: site
    type: web_scraper
`)).toEqual([
      'sources.yml: sources[0].type: sql_database is refused: not registry-backed; use native_pipeline with a generic SQL loader for other databases',
      'sources.yml: sources[1].type: web_scraper is refused: reserved for a future release and cannot be configured at present',
    ]);
  });

  it('requires the section named after the type', () => {
    expect(problemsOf(`sources:
  - name: orders
    type: local_files
    description: Monthly orders
  - name: tickets
    type: crm_c
`)).toEqual([
      'sources.yml: sources[0]: a local_files source needs a local_files: section',
      'sources.yml: sources[1]: a crm_c source needs a generic_config: section',
    ]);
  });

  it('names a section that belongs to another type', () => {
    expect(problemsOf(`sources:
  - name: orders
    type: local_files
    csv: {directory: data/orders}
  - name: api
    type: rest_api
    generic_config: {base_url: "https://api.example.com"}
  - name: notes
    type: notes
    local_files: {directory: data}
  - name: both
    type: local_files
    local_files: {directory: data}
    rest_api: {base_url: "https://api.example.com"}
`)).toEqual([
      'sources.yml: sources[0]: a local_files source needs a local_files: section, not csv:',
      'sources.yml: sources[1]: a rest_api source needs a rest_api: section, not generic_config:',
      'sources.yml: sources[2]: a notes source needs a generic_config: section, not local_files:',
      'sources.yml: sources[3].rest_api: a local_files source takes no rest_api: section',
    ]);
  });

  it('reports duplicate names at each repetition', () => {
    expect(problemsOf(`sources:
  - {name: orders, type: csv, csv: {directory: a}}
  - {name: customers, type: csv, csv: {directory: b}}
  - {name: orders, type: csv, csv: {directory: c}}
  - {name: orders, type: csv, csv: {directory: d}}
`)).toEqual([
      'sources.yml: sources[2].name: duplicate source name "orders" (also sources[0])',
      'sources.yml: sources[3].name: duplicate source name "orders" (also sources[0])',
    ]);
  });

  it('checks the types of the common fields and refuses unknown ones', () => {
    expect(problemsOf(`sources:
  - name: orders
    type: csv
    enabled: "yes"
    description: 12
    tags: demo
    lookback_days: -1
    schedule: daily
    csv: {directory: data}
  - name: events
    type: csv
    tags: [ok, ""]
    lookback_days: 2.5
    csv: {directory: data}
`)).toEqual([
      'sources.yml: sources[0].enabled: expected boolean, got string',
      'sources.yml: sources[0].description: expected string, got number',
      'sources.yml: sources[0].tags: expected list, got string',
      'sources.yml: sources[0].lookback_days: must be at least 0',
      'sources.yml: sources[0]: unknown field schedule',
      'sources.yml: sources[1].tags[1]: must not be empty',
      'sources.yml: sources[1].lookback_days: expected integer, got 2.5',
    ]);
  });

  it('refuses unknown fields inside a typed section', () => {
    expect(problemsOf(`sources:
  - name: orders
    type: local_files
    local_files: {directory: data, pattern: "*.csv", recursive: true}
`)).toEqual([
      'sources.yml: sources[0].local_files: unknown fields pattern, recursive',
    ]);
  });

  it('checks the read_csv options a local_files source fixes, each at its path', () => {
    expect(problemsOf(`sources:
  - name: orders
    type: local_files
    local_files:
      directory: data
      csv: {delim: "", quote: "''", skip: -1, header: "yes", delimiter: ";", types: {id: 5}}
`)).toEqual([
      'sources.yml: sources[0].local_files.csv.delim: must not be empty',
      'sources.yml: sources[0].local_files.csv.quote: must have at most 1 character',
      'sources.yml: sources[0].local_files.csv.skip: must be at least 0',
      'sources.yml: sources[0].local_files.csv.header: expected boolean, got string',
      'sources.yml: sources[0].local_files.csv.types.id: expected string, got number',
      'sources.yml: sources[0].local_files.csv: unknown field delimiter',
    ]);
    const source = onlySource('sources:\n  - name: orders\n    type: local_files\n    local_files: {directory: data, csv: {delim: ";", header: false, nullstr: [NA, "-"]}}\n');
    expect(source.type === 'local_files' ? source.local_files.csv : undefined).toEqual({ delim: ';', header: false, nullstr: ['NA', '-'] });
  });

  it('reads an empty section as a section without fields', () => {
    expect(problemsOf('sources:\n  - name: orders\n    type: csv\n    csv:\n')).toEqual([
      'sources.yml: sources[0].csv.directory: required',
    ]);
  });

  it('checks the fields of a rest_api section', () => {
    expect(problemsOf(`sources:
  - name: missing
    type: rest_api
    rest_api: {auth_type: token}
  - name: wrong
    type: rest_api
    rest_api:
      base_url: ftp://files.example.com
      endpoints: []
      api_key_location: cookie
      headers: {X-Trace: 1}
`)).toEqual([
      'sources.yml: sources[0].rest_api.base_url: required',
      'sources.yml: sources[0].rest_api.endpoints: required',
      'sources.yml: sources[0].rest_api.auth_type: expected one of bearer, api_key, basic, oauth2_client_credentials, custom_header, none, got "token"',
      'sources.yml: sources[1].rest_api.base_url: expected an http(s) URL, got "ftp://files.example.com"',
      'sources.yml: sources[1].rest_api.endpoints: must not be empty',
      'sources.yml: sources[1].rest_api.api_key_location: expected one of header, query, got "cookie"',
      'sources.yml: sources[1].rest_api.headers.X-Trace: expected string, got number',
    ]);
  });

  it('requires the credentials each rest_api auth type uses', () => {
    expect(problemsOf(`sources:
  - name: keyed
    type: rest_api
    rest_api:
      base_url: https://api.example.com
      endpoints: [{path: /users}]
      auth_type: api_key
  - name: client
    type: rest_api
    rest_api:
      base_url: https://api.example.com
      endpoints: [{path: /users}]
      auth_type: oauth2_client_credentials
      client_id_env: CLIENT_ID
`)).toEqual([
      'sources.yml: sources[0].rest_api.auth_token_env: required when auth_type is api_key',
      'sources.yml: sources[0].rest_api.api_key_name: required when auth_type is api_key',
      'sources.yml: sources[1].rest_api.access_token_url: required when auth_type is oauth2_client_credentials',
      'sources.yml: sources[1].rest_api.client_secret_env: required when auth_type is oauth2_client_credentials',
    ]);
  });

  it('checks the shape of each rest_api endpoint', () => {
    expect(problemsOf(`sources:
  - name: api
    type: rest_api
    rest_api:
      base_url: https://api.example.com
      endpoints:
        - params: {page: [1, 2]}
          paginator: 3
          primary_key: []
          data_selector: ""
          incremental: {cursor_path: updated_at, initial_value: [1]}
          table_name: Users
          method: POST
`)).toEqual([
      'sources.yml: sources[0].rest_api.endpoints[0].path: required',
      'sources.yml: sources[0].rest_api.endpoints[0].params.page: expected a string, number or boolean',
      'sources.yml: sources[0].rest_api.endpoints[0].data_selector: must not be empty',
      'sources.yml: sources[0].rest_api.endpoints[0].paginator: expected a paginator name or a mapping with a type field',
      'sources.yml: sources[0].rest_api.endpoints[0].primary_key: must not be empty',
      'sources.yml: sources[0].rest_api.endpoints[0].incremental.param: required',
      'sources.yml: sources[0].rest_api.endpoints[0].incremental.initial_value: expected a string or a number',
      'sources.yml: sources[0].rest_api.endpoints[0].table_name: "Users" is not a valid name: use lowercase letters, digits and underscores, starting with a letter',
      'sources.yml: sources[0].rest_api.endpoints[0]: unknown field method',
    ]);
  });

  it('refuses fields that should name an environment variable but do not', () => {
    expect(problemsOf(`sources:
  - name: ads
    type: social_ads
    social_ads: {account_id: act_1, access_token_env: "my-token"}
  - name: repo
    type: code_host
    code_host: {owner: acme, name: shop, access_token_env: 1TOKEN}
  - name: tickets
    type: helpdesk_b
    generic_config: {api_key_env: secret value}
`)).toEqual([
      'sources.yml: sources[0].social_ads.access_token_env: "my-token" is not an environment variable name: use capital letters, digits and underscores, not starting with a digit',
      'sources.yml: sources[1].code_host.access_token_env: "1TOKEN" is not an environment variable name: use capital letters, digits and underscores, not starting with a digit',
      'sources.yml: sources[2].generic_config.api_key_env: "secret value" is not an environment variable name: use capital letters, digits and underscores, not starting with a digit',
      'sources.yml: sources[2].generic_config.domain: required unless base_url is set',
    ]);
  });

  it('refuses dates that are not real dates and ranges that run backwards', () => {
    expect(problemsOf(`sources:
  - name: ads
    type: social_ads
    social_ads: {account_id: act_1, start_date: 2023-02-29}
  - name: charges
    type: payments
    payments: {start_date: 2024-03-01, end_date: 2024-02-01}
  - name: chat
    type: team_chat
    team_chat: {start_date: 01/02/2024}
  - name: visits
    type: web_analytics
    web_analytics: {property_id: "123", start_date: last week}
  - name: games
    type: chess_games
    chess_games: {players: [magnus], start_month: 2024/13}
`)).toEqual([
      'sources.yml: sources[0].social_ads.start_date: expected a date YYYY-MM-DD, got "2023-02-29"',
      'sources.yml: sources[1].payments.end_date: must not be before start_date',
      'sources.yml: sources[2].team_chat.start_date: expected a date YYYY-MM-DD, got "01/02/2024"',
      'sources.yml: sources[3].web_analytics.start_date: expected a date YYYY-MM-DD, <N>daysAgo, yesterday or today, got "last week"',
      'sources.yml: sources[4].chess_games.start_month: expected a month YYYY/MM, got "2024/13"',
    ]);
  });

  it('refuses resources a type cannot load', () => {
    expect(problemsOf(`sources:
  - name: ads
    type: social_ads
    social_ads: {account_id: act_1, resources: [campaigns, audiences]}
  - name: crm
    type: crm_a
    crm_a: {resources: []}
  - name: sales
    type: crm_b
    crm_b: {resources: [account, contacts]}
  - name: support
    type: helpdesk_a
    generic_config: {subdomain: acme, resources: [tickets, users]}
`)).toEqual([
      'sources.yml: sources[0].social_ads.resources[1]: expected one of campaigns, ads, ad_sets, ad_creatives, leads, facebook_insights, got "audiences"',
      'sources.yml: sources[1].crm_a.resources: must not be empty',
      'sources.yml: sources[2].crm_b.resources[1]: expected one of account, contact, lead, opportunity, campaign, task, event, sf_user, user_role, product_2, got "contacts"',
      'sources.yml: sources[3].generic_config.resources[1]: expected one of tickets, ticket_fields, ticket_events, ticket_metric_events, got "users"',
    ]);
  });

  it('checks spreadsheets and search_ads sections', () => {
    expect(problemsOf(`sources:
  - name: budget
    type: spreadsheets
    spreadsheets: {spreadsheet_url_or_id: abc, deduplication: newest}
  - name: search
    type: search_ads
    search_ads: {property_id: "", credentials_env: ANALYTICS_CREDENTIALS}
`)).toEqual([
      'sources.yml: sources[0].spreadsheets.range_names: required',
      'sources.yml: sources[0].spreadsheets.deduplication: expected one of none, latest_only, append_only, scd_type2, got "newest"',
      'sources.yml: sources[1].search_ads.property_id: expected a customer id like 123-456-7890, got ""',
    ]);
  });

  it('checks native_pipeline module, function, environment references and names', () => {
    expect(problemsOf(`sources:
  - name: custom
    type: native_pipeline
    native_pipeline:
      source_module: "my-loaders"
      source_function: "load()"
      function_kwargs: {token: "env:api token", limit: 10, mode: "environment"}
      dataset_name: Custom
`)).toEqual([
      'sources.yml: sources[0].native_pipeline.source_module: "my-loaders" is not a Python module name',
      'sources.yml: sources[0].native_pipeline.source_function: "load()" is not a Python function name',
      'sources.yml: sources[0].native_pipeline.function_kwargs.token: "env:api token" is not an environment reference: write env:NAME with capital letters, digits and underscores',
      'sources.yml: sources[0].native_pipeline.dataset_name: "Custom" is not a valid name: use lowercase letters, digits and underscores, starting with a letter',
    ]);
  });

  it('checks the generic_config keys of relational_db and helpdesk_a', () => {
    expect(problemsOf(`sources:
  - name: shop_db
    type: relational_db
    generic_config:
      credentials_env: shop_db_url
      schema: 5
      table_names: orders
      incremental: {orders: [updated_at]}
  - name: support
    type: helpdesk_a
    generic_config: {subdomain: "acme.example", email: not-an-email}
`)).toEqual([
      'sources.yml: sources[0].generic_config.credentials_env: "shop_db_url" is not an environment variable name: use capital letters, digits and underscores, not starting with a digit',
      'sources.yml: sources[0].generic_config.schema: expected string, got number',
      'sources.yml: sources[0].generic_config.table_names: expected list, got string',
      'sources.yml: sources[0].generic_config.incremental.orders: expected string, got list',
      'sources.yml: sources[1].generic_config.subdomain: "acme.example" is not a subdomain: use letters, digits and inner hyphens',
      'sources.yml: sources[1].generic_config.email: expected an email address, got "not-an-email"',
    ]);
  });

  it('checks base_url wherever a source may override the API root', () => {
    expect(problemsOf(`sources:
  - name: charges
    type: payments
    payments: {base_url: "localhost:12111"}
  - name: tickets
    type: helpdesk_b
    generic_config: {base_url: "file:///etc/passwd"}
  - name: files
    type: local_files
    local_files: {directory: data, base_url: "https://example.com"}
`)).toEqual([
      'sources.yml: sources[0].payments.base_url: expected an http(s) URL, got "localhost:12111"',
      'sources.yml: sources[1].generic_config.base_url: expected an http(s) URL, got "file:///etc/passwd"',
      'sources.yml: sources[2].local_files: unknown field base_url',
    ]);
  });

  it('checks chess_games and crm_b, whose fields the spec leaves open', () => {
    expect(problemsOf(`sources:
  - name: games
    type: chess_games
    chess_games: {players: ["magnus carlsen"], start_month: 2024/05, end_month: 2024/01}
  - name: nobody
    type: chess_games
    chess_games: {}
  - name: sales
    type: crm_b
    crm_b: {credentials_env: crm-key}
`)).toEqual([
      'sources.yml: sources[0].chess_games.players[0]: "magnus carlsen" is not a username: use letters, digits, _ and -',
      'sources.yml: sources[0].chess_games.end_month: must not be before start_month',
      'sources.yml: sources[1].chess_games.players: required',
      'sources.yml: sources[2].crm_b.credentials_env: "crm-key" is not an environment variable name: use capital letters, digits and underscores, not starting with a digit',
    ]);
  });

  it('reports every problem of every source at once', () => {
    expect(problemsOf(`sources:
  - name: orders
    type: local_files
    local_files: {file_pattern: 5}
  - name: orders
    type: csvv
  - name: api
    type: rest_api
    rest_api: {base_url: "https://api.example.com", endpoints: [{path: 1}]}
`)).toEqual([
      'sources.yml: sources[0].local_files.directory: required',
      'sources.yml: sources[0].local_files.file_pattern: expected string, got number',
      'sources.yml: sources[1].type: unknown source type "csvv"; did you mean csv?',
      'sources.yml: sources[1].name: duplicate source name "orders" (also sources[0])',
      'sources.yml: sources[2].rest_api.endpoints[0].path: expected string, got number',
    ]);
  });
});

describe('parseSources on valid files', () => {
  it('reads an empty file, a file of comments, a missing list and an empty list as no sources', () => {
    expect(parseSources('')).toEqual([]);
    expect(parseSources('# nothing yet\n')).toEqual([]);
    expect(parseSources('sources:\n')).toEqual([]);
    expect(parseSources('sources: []\n')).toEqual([]);
    expect(parseSources(defaultSourcesYaml())).toEqual([]);
  });

  it('applies the common defaults and the local_files pattern', () => {
    expect(onlySource('sources:\n  - name: orders\n    type: local_files\n    local_files: {directory: data/orders}\n')).toEqual({
      name: 'orders',
      type: 'local_files',
      enabled: true,
      tags: [],
      local_files: { directory: 'data/orders', file_pattern: '*' },
    });
  });

  it('keeps the optional common fields when given', () => {
    const source = onlySource(`sources:
  - name: orders
    type: local_files
    enabled: false
    description: Monthly orders
    tags: [demo, shop]
    lookback_days: 3
    staging_column_names: snake_case
    local_files: {directory: data/orders, file_pattern: "*.jsonl", notes: Exported nightly}
`);
    expect(source).toEqual({
      name: 'orders',
      type: 'local_files',
      enabled: false,
      description: 'Monthly orders',
      tags: ['demo', 'shop'],
      lookback_days: 3,
      staging_column_names: 'snake_case',
      local_files: { directory: 'data/orders', file_pattern: '*.jsonl', notes: 'Exported nightly' },
    });
  });

  it('reads staging_column_names as snake_case or original, and a source without it as original', () => {
    const [snake, original, unsaid] = parseSources(`sources:
  - {name: a, type: csv, staging_column_names: snake_case, csv: {directory: data}}
  - {name: b, type: csv, staging_column_names: original, csv: {directory: data}}
  - {name: c, type: csv, csv: {directory: data}}
`);
    expect([snake, original, unsaid].map(stagingColumnNamesOf)).toEqual(['snake_case', 'original', 'original']);
    expect(unsaid).not.toHaveProperty('staging_column_names');
    expect(stagingColumnNamesOf(undefined)).toBe('original');
    expect(problemsOf('sources:\n  - {name: a, type: csv, staging_column_names: snake, csv: {directory: data}}\n')).toEqual([
      'sources.yml: sources[0].staging_column_names: expected one of snake_case, original, got "snake"',
    ]);
  });

  it('defaults the csv pattern to *.csv and accepts the wizard-disabled csv and filesystem types', () => {
    const [csv, filesystem] = parseSources(`sources:
  - name: uploads
    type: csv
    csv: {directory: data/uploads}
  - name: bucket
    type: filesystem
    filesystem: {bucket_url: "s3://acme-exports/orders", credentials_env: BUCKET_CREDENTIALS}
`);
    expect(csv).toMatchObject({ type: 'csv', csv: { directory: 'data/uploads', file_pattern: '*.csv' } });
    expect(filesystem).toMatchObject({
      type: 'filesystem',
      filesystem: { bucket_url: 's3://acme-exports/orders', file_pattern: '*', credentials_env: 'BUCKET_CREDENTIALS' },
    });
  });

  it('defaults rest_api auth to bearer and keeps the endpoint options', () => {
    const source = onlySource(`sources:
  - name: crm_api
    type: rest_api
    rest_api:
      base_url: https://api.example.com/v2
      auth_token_env: CRM_API_TOKEN
      headers: {Accept: application/json}
      endpoints:
        - path: /contacts
          params: {limit: 100, archived: false}
          data_selector: data.items
          paginator: {type: cursor, cursor_path: next}
          primary_key: [id, region]
          incremental: {cursor_path: updated_at, param: since, initial_value: "2024-01-01"}
          table_name: contacts
        - path: /deals
          paginator: header_link
          primary_key: id
`);
    if (source.type !== 'rest_api') throw new Error('expected a rest_api source');
    expect(source.rest_api.auth_type).toBe('bearer');
    expect(source.rest_api).toEqual({
      base_url: 'https://api.example.com/v2',
      auth_type: 'bearer',
      auth_token_env: 'CRM_API_TOKEN',
      headers: { Accept: 'application/json' },
      endpoints: [
        {
          path: '/contacts',
          params: { limit: 100, archived: false },
          data_selector: 'data.items',
          paginator: { type: 'cursor', cursor_path: 'next' },
          primary_key: ['id', 'region'],
          incremental: { cursor_path: 'updated_at', param: 'since', initial_value: '2024-01-01' },
          table_name: 'contacts',
        },
        { path: '/deals', paginator: 'header_link', primary_key: 'id' },
      ],
    });
  });

  it('applies the social_ads defaults', () => {
    const source = onlySource('sources:\n  - name: ads\n    type: social_ads\n    social_ads: {account_id: act_1234}\n');
    expect(source).toMatchObject({
      social_ads: {
        account_id: 'act_1234',
        access_token_env: 'SOCIAL_ADS_ACCESS_TOKEN',
        initial_load_past_days: 30,
        resources: ['campaigns', 'ads', 'ad_sets', 'facebook_insights'],
      },
    });
  });

  it('defaults spreadsheets deduplication to latest_only', () => {
    const source = onlySource(`sources:
  - name: budget
    type: spreadsheets
    spreadsheets: {spreadsheet_url_or_id: 1AbCdEf, range_names: [Budget, Actuals]}
`);
    expect(source).toMatchObject({
      spreadsheets: { spreadsheet_url_or_id: '1AbCdEf', range_names: ['Budget', 'Actuals'], deduplication: 'latest_only' },
    });
  });

  it('names a native_pipeline pipeline and dataset after the source unless told otherwise', () => {
    const [named, explicit] = parseSources(`sources:
  - name: legacy_erp
    type: native_pipeline
    native_pipeline: {source_module: loaders.erp, source_function: erp_source}
  - name: warehouse_copy
    type: native_pipeline
    native_pipeline:
      source_module: sql_loader
      source_function: sql_database
      function_kwargs: {credentials: "env:ERP_DB_URL", chunk_size: 5000}
      pipeline_name: erp_copy
      dataset_name: erp
`);
    expect(named).toMatchObject({
      native_pipeline: {
        source_module: 'loaders.erp', source_function: 'erp_source', function_kwargs: {},
        pipeline_name: 'legacy_erp', dataset_name: 'legacy_erp',
      },
    });
    expect(explicit).toMatchObject({
      native_pipeline: {
        function_kwargs: { credentials: 'env:ERP_DB_URL', chunk_size: 5000 },
        pipeline_name: 'erp_copy', dataset_name: 'erp',
      },
    });
  });

  it('applies the defaults of the other typed sections', () => {
    const sources = parseSources(`sources:
  - {name: visits, type: web_analytics, web_analytics: {property_id: 123456789, start_date: 90daysAgo}}
  - {name: search, type: search_ads, search_ads: {property_id: "123-456-7890"}}
  - {name: crm, type: crm_a, crm_a:}
  - {name: sales, type: crm_b, crm_b: {base_url: "http://127.0.0.1:9100"}}
  - {name: charges, type: payments, payments: {start_date: 2024-01-01, end_date: 2024-01-31}}
  - {name: repo, type: code_host, code_host: {owner: acme, name: shop}}
  - {name: chat, type: team_chat, team_chat: {selected_channels: [C01, C02]}}
  - {name: games, type: chess_games, chess_games: {players: [magnus, hikaru], start_month: 2024/01}}
`);
    expect(sources.map((source) => source.type)).toEqual([
      'web_analytics', 'search_ads', 'crm_a', 'crm_b', 'payments', 'code_host', 'team_chat', 'chess_games',
    ]);
    expect(sources[0]).toMatchObject({ web_analytics: { property_id: '123456789', credentials_env: 'ANALYTICS_CREDENTIALS', start_date: '90daysAgo' } });
    expect(sources[1]).toMatchObject({ search_ads: { property_id: '123-456-7890', credentials_env: 'ANALYTICS_CREDENTIALS' } });
    expect(sources[2]).toMatchObject({ crm_a: { api_key_env: 'CRM_A_API_KEY', resources: ['contacts', 'companies', 'deals', 'tickets'] } });
    expect(sources[3]).toMatchObject({
      crm_b: {
        credentials_env: 'CRM_B_CREDENTIALS', base_url: 'http://127.0.0.1:9100',
        resources: ['account', 'contact', 'lead', 'opportunity', 'campaign'],
      },
    });
    expect(sources[4]).toMatchObject({ payments: { payments_secret_key_env: 'PAYMENTS_API_KEY', start_date: '2024-01-01', end_date: '2024-01-31' } });
    expect(sources[5]).toMatchObject({ code_host: { access_token_env: 'CODE_HOST_ACCESS_TOKEN', owner: 'acme', name: 'shop' } });
    expect(sources[6]).toMatchObject({ team_chat: { access_token_env: 'TEAM_CHAT_ACCESS_TOKEN', selected_channels: ['C01', 'C02'] } });
    expect(sources[7]).toMatchObject({ chess_games: { players: ['magnus', 'hikaru'], start_month: '2024/01' } });
  });

  it('passes generic_config through, with its checked keys and the helpdesk_a resources default', () => {
    const [database, helpdesk, tracker] = parseSources(`sources:
  - name: shop_db
    type: relational_db
    generic_config:
      credentials_env: SHOP_DB_URL
      schema: public
      table_names: [orders, customers]
      incremental: {orders: updated_at}
      chunk_size: 10000
  - name: support
    type: helpdesk_a
    generic_config: {subdomain: acme, email: ops@acme.example, api_token_env: HELPDESK_TOKEN, start_date: 2024-01-01}
  - name: issues
    type: issue_tracker
    generic_config: {base_url: "https://issues.acme.example", projects: [SHOP, OPS]}
`);
    expect(database).toEqual({
      name: 'shop_db', type: 'relational_db', enabled: true, tags: [],
      generic_config: {
        credentials_env: 'SHOP_DB_URL', schema: 'public', table_names: ['orders', 'customers'],
        incremental: { orders: 'updated_at' }, chunk_size: 10000,
      },
    });
    expect(helpdesk).toMatchObject({
      generic_config: {
        subdomain: 'acme', email: 'ops@acme.example', api_token_env: 'HELPDESK_TOKEN', start_date: '2024-01-01',
        resources: ['tickets', 'ticket_fields'],
      },
    });
    expect(tracker).toMatchObject({
      type: 'issue_tracker', generic_config: { base_url: 'https://issues.acme.example', projects: ['SHOP', 'OPS'] },
    });
  });

  it('lets a caller reach the section after narrowing on type', () => {
    const directories = parseSources(`sources:
  - {name: orders, type: local_files, local_files: {directory: data/orders}}
  - {name: uploads, type: csv, csv: {directory: data/uploads}}
  - {name: crm, type: crm_c, generic_config: {}}
`).map((source) => {
      switch (source.type) {
        case 'local_files': return source.local_files.directory;
        case 'csv': return source.csv.directory;
        default: return null;
      }
    });
    expect(directories).toEqual(['data/orders', 'data/uploads', null]);
  });

  it('returns frozen sources', () => {
    const sources = parseSources(`sources:
  - {name: orders, type: local_files, tags: [demo], local_files: {directory: data/orders}}
`);
    const source = sources[0]!;
    expect(Object.isFrozen(sources)).toBe(true);
    expect(Object.isFrozen(source)).toBe(true);
    expect(Object.isFrozen(source.tags)).toBe(true);
    if (source.type !== 'local_files') throw new Error('expected a local_files source');
    expect(Object.isFrozen(source.local_files)).toBe(true);
  });
});

describe('serializeSources', () => {
  it('writes text that parseSources reads back unchanged', () => {
    const sources = parseSources(`sources:
  - name: orders
    type: local_files
    description: "Orders: one file a month"
    tags: [demo]
    lookback_days: 2
    staging_column_names: snake_case
    local_files: {directory: data/orders, file_pattern: "*.csv"}
  - name: crm_api
    type: rest_api
    enabled: false
    rest_api:
      base_url: https://api.example.com
      auth_type: api_key
      auth_token_env: CRM_TOKEN
      api_key_name: X-Api-Key
      api_key_location: header
      endpoints: [{path: /contacts, params: {limit: 100}, primary_key: id}]
  - name: erp
    type: native_pipeline
    native_pipeline: {source_module: loaders.erp, source_function: erp_source, function_kwargs: {token: "env:ERP_TOKEN"}}
  - name: visits
    type: web_analytics
    web_analytics: {property_id: "0042", start_date: "2024-01-01"}
  - name: shop_db
    type: relational_db
    generic_config: {credentials_env: SHOP_DB_URL, table_names: [orders], port: 5432}
`);
    const text = serializeSources(sources);
    expect(parseSources(text)).toEqual(sources);
    expect(text).toContain('  - name: orders\n    type: local_files\n    enabled: true\n');
  });

  it('writes an empty list that reads back as no sources', () => {
    const text = serializeSources([]);
    expect(text).toMatch(/^# /);
    expect(text.endsWith('sources: []\n')).toBe(true);
    expect(parseSources(text)).toEqual([]);
  });

  it('starts a new project with a commented, empty sources file', () => {
    const text = defaultSourcesYaml();
    expect(text.split('\n')[0]).toMatch(/^# /);
    expect(text.endsWith('sources: []\n')).toBe(true);
  });
});

describe('the source type registry', () => {
  const types = SOURCE_TYPE_KEYS.map((key) => SOURCE_TYPES[key]);
  const disabled = types.filter((type) => !type.wizard);

  it('holds the 35 types of the spec, then csv_url and json_url, in 10 categories', () => {
    expect(SOURCE_TYPE_KEYS).toHaveLength(37);
    expect(SOURCE_TYPE_KEYS.slice(35)).toEqual(['csv_url', 'json_url']);
    expect(new Set(SOURCE_TYPE_KEYS).size).toBe(37);
    expect(Object.keys(SOURCE_TYPES).sort()).toEqual([...SOURCE_TYPE_KEYS].sort());
    expect(types.every((type) => SOURCE_TYPES[type.key] === type)).toBe(true);
    expect(CATEGORIES).toHaveLength(10);
    expect(new Set(types.map((type) => type.category))).toEqual(new Set(CATEGORIES));
  });

  it('uses the 5 auth types among registry-backed types, and none for the two without an entry', () => {
    const backed = types.filter((type) => type.hasRegistryEntry);
    expect(backed).toHaveLength(35);
    expect(new Set(backed.map((type) => type.authType))).toEqual(new Set(AUTH_TYPES));
    expect(types.filter((type) => !type.hasRegistryEntry).map((type) => [type.key, type.authType])).toEqual([
      ['sql_database', null],
      ['web_scraper', null],
    ]);
  });

  it('enables the wizard for 27 types and gives each of the 10 others a reason', () => {
    expect(types.filter((type) => type.wizard)).toHaveLength(27);
    expect(disabled.map((type) => type.key)).toEqual([
      'csv', 'filesystem', 'self_hosted_analytics', 'issue_tracker', 'task_tracker', 'storefront',
      'sql_database', 'headless_cms', 'hr_service', 'web_scraper',
    ]);
    expect(disabled.every((type) => typeof type.wizardDisabledReason === 'string' && type.wizardDisabledReason.length > 0)).toBe(true);
    expect(types.filter((type) => type.wizard).every((type) => type.wizardDisabledReason === null)).toBe(true);
  });

  it('matches the spec table for a sample of rows', () => {
    expect(SOURCE_TYPES.crm_b).toMatchObject({
      category: 'Business & CRM', authType: 'Service Account', wizard: true, incremental: true, section: 'crm_b',
    });
    expect(SOURCE_TYPES.native_pipeline).toMatchObject({ category: 'Local & Custom', authType: 'None', incremental: false });
    expect(SOURCE_TYPES.storefront).toMatchObject({ category: 'E-commerce & Payment', authType: 'OAuth', wizard: false });
    expect(SOURCE_TYPES.helpdesk_a).toMatchObject({ authType: 'Basic', section: 'generic_config' });
    expect(SOURCE_TYPES.cloud_stream).toMatchObject({ category: 'Streaming', authType: 'Service Account' });
  });

  it('names a section for every type: 17 of their own, generic_config for the rest', () => {
    const own = types.filter((type) => type.section === type.key).map((type) => type.key);
    expect(own.sort()).toEqual([
      'chess_games', 'code_host', 'crm_a', 'crm_b', 'csv', 'csv_url', 'filesystem', 'json_url', 'local_files', 'native_pipeline',
      'payments', 'rest_api', 'search_ads', 'social_ads', 'spreadsheets', 'team_chat', 'web_analytics',
    ]);
    expect(types.filter((type) => type.section === 'generic_config')).toHaveLength(20);
  });

  it('records the resources the spec gives', () => {
    // Types whose lists the spec leaves open carry the lists their connectors chose.
    expect(types.filter((type) => type.resources !== null).map((type) => type.key)).toEqual(expect.arrayContaining([
      'social_ads', 'crm_a', 'crm_b', 'helpdesk_a',
    ]));
    expect(SOURCE_TYPES.helpdesk_a.resources).toEqual({
      default: ['tickets', 'ticket_fields'],
      available: ['tickets', 'ticket_fields', 'ticket_events', 'ticket_metric_events'],
    });
    expect(types.every((type) => type.resources?.default.every((name) => type.resources?.available.includes(name)) ?? true)).toBe(true);
  });
});
