import type { SourceTypeKey } from './source-types.ts';

/**
 * What each type key stands for (the table of docs/connectors/README.md). The keys are neutral words, but people
 * look for the product they use, so the product is shown beside the key wherever a type is chosen.
 */
const PRODUCTS: Readonly<Record<SourceTypeKey, string>> = {
  local_files: 'files in a folder (CSV, JSON, JSONL, Parquet, Excel)',
  rest_api: 'any JSON API',
  native_pipeline: 'a dlt source in Python',
  csv: 'CSV files in a folder',
  filesystem: 'files in a folder or object storage',
  spreadsheets: 'Google Sheets',
  social_ads: 'Meta (Facebook) Ads',
  web_analytics: 'Google Analytics 4',
  search_ads: 'Google Ads',
  video_analytics: 'YouTube',
  table_db: 'Airtable',
  self_hosted_analytics: 'Matomo',
  crm_a: 'HubSpot',
  crm_b: 'Salesforce',
  helpdesk_a: 'Zendesk',
  crm_c: 'Pipedrive',
  helpdesk_b: 'Freshdesk',
  recruiting: 'Greenhouse',
  issue_tracker: 'Jira Cloud',
  task_tracker: 'Asana',
  payments: 'Stripe',
  storefront: 'Shopify',
  notes: 'Notion',
  inbox: 'an IMAP mailbox',
  document_db: 'MongoDB',
  relational_db: 'PostgreSQL, MySQL, MariaDB',
  sql_database: 'other SQL databases',
  code_host: 'GitHub',
  team_chat: 'Slack',
  event_stream: 'Apache Kafka, NATS JetStream',
  cloud_stream: 'Google Cloud Pub/Sub',
  chess_games: 'Chess.com',
  headless_cms: 'Strapi',
  hr_service: 'Personio',
  web_scraper: 'web pages',
  csv_url: 'a CSV file over HTTP(S)',
  json_url: 'a JSON or JSON Lines file over HTTP(S)',
};

/** The product or kind of data a type key stands for. */
export function productOf(key: SourceTypeKey): string {
  return PRODUCTS[key];
}

/** Where a type the form does not add is better served, when that is not "by hand, as its page says". */
const INSTEAD: Readonly<Partial<Record<SourceTypeKey, string>>> = {
  csv: 'Use local_files instead: it reads the same CSV files and takes uploads.',
  filesystem: 'Use local_files for files on this machine; for a folder elsewhere, add a filesystem source to sources.yml by hand.',
  self_hosted_analytics: 'Add it to sources.yml by hand with a view-only token (Matomo takes the token in the request address); see docs/connectors/self_hosted_analytics.md.',
  hr_service: 'Needs Personio API access (an enterprise plan); add it to sources.yml by hand; see docs/connectors/hr_service.md.',
  sql_database: 'Use relational_db for PostgreSQL or MySQL; for another database, have an admin add a native_pipeline source with dlt’s SQL loader (see docs/connectors/README.md).',
  web_scraper: 'Not available yet.',
};

/** What to do to load a type the form does not add: the user's next step, not the reason it is not offered. */
export function howToAdd(key: SourceTypeKey): string {
  return INSTEAD[key] ?? `Add it to sources.yml by hand; see docs/connectors/${key}.md.`;
}
