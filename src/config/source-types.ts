import { deepFreeze } from './deep-freeze.ts';

export const CATEGORIES = [
  'Local & Custom',
  'Marketing & Analytics',
  'Business & CRM',
  'E-commerce & Payment',
  'Files & Storage',
  'Databases',
  'Development',
  'Communication',
  'Streaming',
  'Other',
] as const;
export type Category = (typeof CATEGORIES)[number];

export const AUTH_TYPES = ['None', 'API Key', 'OAuth', 'Basic', 'Service Account'] as const;
export type AuthType = (typeof AUTH_TYPES)[number];

export const SOURCE_TYPE_KEYS = [
  'local_files', 'rest_api', 'native_pipeline', 'csv', 'filesystem',
  'spreadsheets', 'social_ads', 'web_analytics', 'search_ads', 'video_analytics', 'table_db', 'self_hosted_analytics',
  'crm_a', 'crm_b', 'helpdesk_a', 'crm_c', 'helpdesk_b', 'recruiting', 'issue_tracker', 'task_tracker',
  'payments', 'storefront',
  'notes', 'inbox',
  'document_db', 'relational_db', 'sql_database',
  'code_host',
  'team_chat',
  'event_stream', 'cloud_stream',
  'chess_games', 'headless_cms', 'hr_service', 'web_scraper',
] as const;
export type SourceTypeKey = (typeof SOURCE_TYPE_KEYS)[number];

/** The types whose fields have a section of their own, named after the type. */
export const TYPED_SOURCE_TYPE_KEYS = [
  'local_files', 'csv', 'filesystem', 'rest_api', 'native_pipeline', 'spreadsheets', 'social_ads', 'web_analytics',
  'search_ads', 'crm_a', 'crm_b', 'payments', 'code_host', 'team_chat', 'chess_games',
] as const satisfies readonly SourceTypeKey[];
export type TypedSourceTypeKey = (typeof TYPED_SOURCE_TYPE_KEYS)[number];

/** Recognised values of `type` that sources.yml refuses: they have no registry entry. */
export const REFUSED_SOURCE_TYPE_KEYS = ['sql_database', 'web_scraper'] as const satisfies readonly SourceTypeKey[];
export type RefusedSourceTypeKey = (typeof REFUSED_SOURCE_TYPE_KEYS)[number];

export type GenericSourceTypeKey = Exclude<SourceTypeKey, TypedSourceTypeKey | RefusedSourceTypeKey>;
export type ConfigurableSourceTypeKey = Exclude<SourceTypeKey, RefusedSourceTypeKey>;

export const GENERIC_CONFIG_SECTION = 'generic_config';
export type SectionName = TypedSourceTypeKey | typeof GENERIC_CONFIG_SECTION;
export const SECTION_NAMES: readonly SectionName[] = [...TYPED_SOURCE_TYPE_KEYS, GENERIC_CONFIG_SECTION];

/** Resources a type loads when `resources` is absent, and every one it can load. */
export const SOURCE_RESOURCES = {
  social_ads: {
    default: ['campaigns', 'ads', 'ad_sets', 'facebook_insights'],
    available: ['campaigns', 'ads', 'ad_sets', 'ad_creatives', 'leads', 'facebook_insights'],
  },
  crm_a: {
    default: ['contacts', 'companies', 'deals', 'tickets'],
    available: [
      'contacts', 'companies', 'deals', 'tickets', 'products', 'quotes', 'owners', 'properties',
      'pipelines_deal', 'pipelines_ticket',
    ],
  },
  crm_b: {
    default: ['account', 'contact', 'lead', 'opportunity', 'campaign'],
    available: [
      'account', 'contact', 'lead', 'opportunity', 'campaign', 'task', 'event', 'sf_user', 'user_role', 'product_2',
    ],
  },
  helpdesk_a: {
    default: ['tickets', 'ticket_fields'],
    available: ['tickets', 'ticket_fields', 'ticket_events', 'ticket_metric_events'],
  },
  payments: {
    default: [
      'customers', 'charges', 'invoices', 'subscriptions', 'products', 'prices', 'payment_intents', 'balance_transactions', 'events',
    ],
    available: [
      'customers', 'charges', 'invoices', 'subscriptions', 'products', 'prices', 'payment_intents', 'balance_transactions', 'events',
    ],
  },
  code_host: {
    default: ['issues', 'pull_requests', 'commits', 'releases', 'stargazers'],
    available: ['issues', 'pull_requests', 'commits', 'releases', 'stargazers'],
  },
  team_chat: {
    default: ['channels', 'messages', 'users'],
    available: ['channels', 'messages', 'users'],
  },
  notes: {
    default: ['databases', 'database_rows', 'pages'],
    available: ['databases', 'database_rows', 'pages', 'users'],
  },
  task_tracker: {
    default: ['workspaces', 'projects', 'tasks', 'users'],
    available: ['workspaces', 'projects', 'tasks', 'users', 'sections', 'tags'],
  },
  helpdesk_b: {
    default: ['tickets', 'contacts', 'companies', 'agents', 'groups'],
    available: ['tickets', 'contacts', 'companies', 'agents', 'groups', 'ticket_fields'],
  },
  crm_c: {
    default: ['deals', 'persons', 'organizations', 'activities', 'pipelines', 'stages', 'users'],
    available: ['deals', 'persons', 'organizations', 'activities', 'pipelines', 'stages', 'users', 'products'],
  },
  recruiting: {
    default: ['candidates', 'applications', 'jobs', 'offers', 'users', 'departments', 'offices'],
    available: ['candidates', 'applications', 'jobs', 'offers', 'users', 'departments', 'offices', 'job_posts', 'scorecards'],
  },
  issue_tracker: {
    default: ['issues', 'projects', 'users'],
    available: ['issues', 'projects', 'users', 'workflows', 'issue_types', 'priorities', 'statuses'],
  },
  hr_service: {
    default: ['employees', 'absences', 'attendances'],
    available: ['employees', 'absences', 'attendances', 'absence_types'],
  },
  self_hosted_analytics: {
    default: ['visits_summary', 'visits'],
    available: ['visits_summary', 'visits', 'page_urls'],
  },
  chess_games: {
    default: ['players', 'games'],
    available: ['players', 'games', 'player_stats'],
  },
  video_analytics: {
    default: ['channels', 'playlist_items', 'videos'],
    available: ['channels', 'playlist_items', 'videos'],
  },
  web_analytics: {
    default: ['traffic', 'pages'],
    available: ['traffic', 'pages', 'events', 'devices', 'locations'],
  },
  search_ads: {
    default: ['campaign_stats', 'ad_group_stats', 'keyword_stats', 'ad_stats', 'search_term_stats'],
    available: ['campaign_stats', 'ad_group_stats', 'keyword_stats', 'ad_stats', 'search_term_stats'],
  },
  storefront: {
    default: ['orders', 'customers', 'products'],
    available: ['orders', 'customers', 'products', 'custom_collections', 'smart_collections', 'locations'],
  },
} as const;

export interface ResourceLists {
  readonly default: readonly string[];
  readonly available: readonly string[];
}

export interface SourceType {
  readonly key: SourceTypeKey;
  readonly category: Category;
  /** null for the two types without a registry entry. */
  readonly authType: AuthType | null;
  readonly wizard: boolean;
  readonly incremental: boolean;
  readonly hasRegistryEntry: boolean;
  /** Why `quarry source add` does not offer the type; null for wizard-enabled types. */
  readonly wizardDisabledReason: string | null;
  /** The key of the section holding the type's fields in sources.yml. */
  readonly section: SectionName;
  readonly resources: ResourceLists | null;
}

type SourceTypeRow = Pick<SourceType, 'category' | 'authType' | 'wizard' | 'incremental'> & {
  readonly wizardDisabledReason?: string;
};

const HIDDEN = 'hidden; use local_files, or filesystem by hand for cloud object storage';

const ROWS: Readonly<Record<SourceTypeKey, SourceTypeRow>> = {
  local_files: { category: 'Local & Custom', authType: 'None', wizard: true, incremental: true },
  rest_api: { category: 'Local & Custom', authType: 'API Key', wizard: true, incremental: true },
  native_pipeline: { category: 'Local & Custom', authType: 'None', wizard: true, incremental: false },
  csv: { category: 'Local & Custom', authType: 'None', wizard: false, incremental: true, wizardDisabledReason: HIDDEN },
  filesystem: { category: 'Local & Custom', authType: 'None', wizard: false, incremental: false, wizardDisabledReason: HIDDEN },
  spreadsheets: { category: 'Marketing & Analytics', authType: 'OAuth', wizard: true, incremental: false },
  social_ads: { category: 'Marketing & Analytics', authType: 'OAuth', wizard: true, incremental: true },
  web_analytics: { category: 'Marketing & Analytics', authType: 'OAuth', wizard: true, incremental: true },
  search_ads: { category: 'Marketing & Analytics', authType: 'OAuth', wizard: true, incremental: false },
  video_analytics: { category: 'Marketing & Analytics', authType: 'API Key', wizard: true, incremental: false },
  table_db: { category: 'Marketing & Analytics', authType: 'API Key', wizard: true, incremental: false },
  self_hosted_analytics: {
    category: 'Marketing & Analytics', authType: 'API Key', wizard: false, incremental: true,
    wizardDisabledReason: 'passes its token as a GET parameter, a security risk; configure it via native_pipeline',
  },
  crm_a: { category: 'Business & CRM', authType: 'API Key', wizard: true, incremental: true },
  crm_b: { category: 'Business & CRM', authType: 'Service Account', wizard: true, incremental: true },
  helpdesk_a: { category: 'Business & CRM', authType: 'Basic', wizard: true, incremental: true },
  crm_c: { category: 'Business & CRM', authType: 'API Key', wizard: true, incremental: true },
  helpdesk_b: { category: 'Business & CRM', authType: 'API Key', wizard: true, incremental: true },
  recruiting: { category: 'Business & CRM', authType: 'API Key', wizard: true, incremental: true },
  issue_tracker: {
    category: 'Business & CRM', authType: 'Basic', wizard: false, incremental: false,
    wizardDisabledReason: 'its upstream loader has endpoint problems; configure it via native_pipeline',
  },
  task_tracker: {
    category: 'Business & CRM', authType: 'API Key', wizard: false, incremental: true,
    wizardDisabledReason: 'its upstream loader lost its SDK; configure it via native_pipeline',
  },
  payments: { category: 'E-commerce & Payment', authType: 'API Key', wizard: true, incremental: true },
  storefront: {
    category: 'E-commerce & Payment', authType: 'OAuth', wizard: false, incremental: true,
    wizardDisabledReason: 'needs an authorization-code OAuth provider command that does not exist yet',
  },
  notes: { category: 'Files & Storage', authType: 'API Key', wizard: true, incremental: false },
  inbox: { category: 'Files & Storage', authType: 'Basic', wizard: true, incremental: true },
  document_db: { category: 'Databases', authType: 'Basic', wizard: true, incremental: true },
  relational_db: { category: 'Databases', authType: 'Basic', wizard: true, incremental: true },
  sql_database: {
    category: 'Databases', authType: null, wizard: false, incremental: false,
    wizardDisabledReason: 'not registry-backed; use native_pipeline with a generic SQL loader for other databases',
  },
  code_host: { category: 'Development', authType: 'API Key', wizard: true, incremental: true },
  team_chat: { category: 'Communication', authType: 'API Key', wizard: true, incremental: true },
  event_stream: { category: 'Streaming', authType: 'None', wizard: true, incremental: true },
  cloud_stream: { category: 'Streaming', authType: 'Service Account', wizard: true, incremental: true },
  chess_games: { category: 'Other', authType: 'None', wizard: true, incremental: true },
  headless_cms: {
    category: 'Other', authType: 'API Key', wizard: false, incremental: false, wizardDisabledReason: 'untested',
  },
  hr_service: {
    category: 'Other', authType: 'API Key', wizard: false, incremental: true,
    wizardDisabledReason: 'its API is enterprise-only',
  },
  web_scraper: {
    category: 'Other', authType: null, wizard: false, incremental: false,
    wizardDisabledReason: 'reserved for a future release and cannot be configured at present',
  },
};

function describeSourceType(key: SourceTypeKey): SourceType {
  const row = ROWS[key];
  const resources: ResourceLists | undefined = (SOURCE_RESOURCES as Partial<Record<SourceTypeKey, ResourceLists>>)[key];
  return {
    key,
    category: row.category,
    authType: row.authType,
    wizard: row.wizard,
    incremental: row.incremental,
    hasRegistryEntry: !isRefusedSourceType(key),
    wizardDisabledReason: row.wizardDisabledReason ?? null,
    section: isTypedSourceType(key) ? key : GENERIC_CONFIG_SECTION,
    resources: resources ?? null,
  };
}

/** Every source type of the spec, keyed by its type key. */
export const SOURCE_TYPES: Readonly<Record<SourceTypeKey, SourceType>> = deepFreeze(
  Object.fromEntries(SOURCE_TYPE_KEYS.map((key) => [key, describeSourceType(key)])) as Record<SourceTypeKey, SourceType>,
);

export function isSourceTypeKey(value: string): value is SourceTypeKey {
  return (SOURCE_TYPE_KEYS as readonly string[]).includes(value);
}

export function isTypedSourceType(key: SourceTypeKey): key is TypedSourceTypeKey {
  return (TYPED_SOURCE_TYPE_KEYS as readonly string[]).includes(key);
}

export function isRefusedSourceType(key: SourceTypeKey): key is RefusedSourceTypeKey {
  return (REFUSED_SOURCE_TYPE_KEYS as readonly string[]).includes(key);
}
