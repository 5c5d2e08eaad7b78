import type { ConfigurableSourceTypeKey, SourceConfig, SourceConfigOf } from '../config/index.ts';
import { extractThenLoad } from './connector-loader.ts';
import { chessGamesConnector } from './connectors/chess-games.ts';
import { cloudStreamConnector } from './connectors/cloud-stream.ts';
import { codeHostConnector } from './connectors/code-host.ts';
import { csvUrlConnector } from './connectors/csv-url.ts';
import { csvLoader } from './connectors/csv.ts';
import { crmAConnector } from './connectors/crm-a.ts';
import { crmBConnector } from './connectors/crm-b.ts';
import { crmCConnector } from './connectors/crm-c.ts';
import { documentDbConnector } from './connectors/document-db.ts';
import { eventStreamConnector } from './connectors/event-stream.ts';
import { filesystemLoader } from './connectors/filesystem.ts';
import { headlessCmsConnector } from './connectors/headless-cms.ts';
import { helpdeskAConnector } from './connectors/helpdesk-a.ts';
import { helpdeskBConnector } from './connectors/helpdesk-b.ts';
import { hrServiceConnector } from './connectors/hr-service.ts';
import { inboxConnector } from './connectors/inbox.ts';
import { issueTrackerConnector } from './connectors/issue-tracker.ts';
import { localFilesLoader } from './connectors/local-files.ts';
import { nativePipelineConnector } from './connectors/native-pipeline.ts';
import { notesConnector } from './connectors/notes.ts';
import { paymentsConnector } from './connectors/payments.ts';
import { recruitingConnector } from './connectors/recruiting.ts';
import { relationalDbConnector } from './connectors/relational-db.ts';
import { searchAdsConnector } from './connectors/search-ads.ts';
import { selfHostedAnalyticsConnector } from './connectors/self-hosted-analytics.ts';
import { socialAdsConnector } from './connectors/social-ads.ts';
import { spreadsheetsConnector } from './connectors/spreadsheets.ts';
import { storefrontConnector } from './connectors/storefront.ts';
import { tableDbConnector } from './connectors/table-db.ts';
import { taskTrackerConnector } from './connectors/task-tracker.ts';
import { teamChatConnector } from './connectors/team-chat.ts';
import { videoAnalyticsConnector } from './connectors/video-analytics.ts';
import { webAnalyticsConnector } from './connectors/web-analytics.ts';
import { restApiConnector } from './rest/rest-api-connector.ts';
import type { FileLocation, SourceLoader } from './source-loader.ts';

type SourceLoaders = { readonly [Key in ConfigurableSourceTypeKey]: SourceLoader<SourceConfigOf<Key>> };

/**
 * The loader of every type sources.yml accepts, in the spec's order: files read by DuckDB, or a connector's
 * extraction loaded from staging. Typed as a complete record, so a type without a loader does not compile.
 */
const LOADERS: SourceLoaders = {
  local_files: localFilesLoader,
  rest_api: extractThenLoad(restApiConnector),
  native_pipeline: extractThenLoad(nativePipelineConnector),
  csv: csvLoader,
  filesystem: filesystemLoader,
  spreadsheets: extractThenLoad(spreadsheetsConnector),
  social_ads: extractThenLoad(socialAdsConnector),
  web_analytics: extractThenLoad(webAnalyticsConnector),
  search_ads: extractThenLoad(searchAdsConnector),
  video_analytics: extractThenLoad(videoAnalyticsConnector),
  table_db: extractThenLoad(tableDbConnector),
  self_hosted_analytics: extractThenLoad(selfHostedAnalyticsConnector),
  crm_a: extractThenLoad(crmAConnector),
  crm_b: extractThenLoad(crmBConnector),
  helpdesk_a: extractThenLoad(helpdeskAConnector),
  crm_c: extractThenLoad(crmCConnector),
  helpdesk_b: extractThenLoad(helpdeskBConnector),
  recruiting: extractThenLoad(recruitingConnector),
  issue_tracker: extractThenLoad(issueTrackerConnector),
  task_tracker: extractThenLoad(taskTrackerConnector),
  payments: extractThenLoad(paymentsConnector),
  storefront: extractThenLoad(storefrontConnector),
  notes: extractThenLoad(notesConnector),
  inbox: extractThenLoad(inboxConnector),
  document_db: extractThenLoad(documentDbConnector),
  relational_db: extractThenLoad(relationalDbConnector),
  code_host: extractThenLoad(codeHostConnector),
  team_chat: extractThenLoad(teamChatConnector),
  event_stream: extractThenLoad(eventStreamConnector),
  cloud_stream: extractThenLoad(cloudStreamConnector),
  chess_games: extractThenLoad(chessGamesConnector),
  headless_cms: extractThenLoad(headlessCmsConnector),
  hr_service: extractThenLoad(hrServiceConnector),
  csv_url: extractThenLoad(csvUrlConnector),
};

/** The loader of the source's type. */
export function loaderFor(source: SourceConfig): SourceLoader {
  // Each entry takes only its own type's sources; `source.type` picks that entry.
  return LOADERS[source.type];
}

/** Where a file source's files live, or undefined for sources of other kinds (and for files in object storage). */
export function fileSourceLocation(source: SourceConfig, projectDir: string): FileLocation | undefined {
  return loaderFor(source).fileLocation(source, projectDir);
}
