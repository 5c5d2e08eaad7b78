import type { ConfigurableSourceTypeKey, SourceConfig } from '../config/index.ts';
import type { Connector } from './connector.ts';
import { chessGamesConnector } from './connectors/chess-games.ts';
import { cloudStreamConnector } from './connectors/cloud-stream.ts';
import { codeHostConnector } from './connectors/code-host.ts';
import { crmAConnector } from './connectors/crm-a.ts';
import { crmBConnector } from './connectors/crm-b.ts';
import { crmCConnector } from './connectors/crm-c.ts';
import { documentDbConnector } from './connectors/document-db.ts';
import { eventStreamConnector } from './connectors/event-stream.ts';
import { headlessCmsConnector } from './connectors/headless-cms.ts';
import { helpdeskAConnector } from './connectors/helpdesk-a.ts';
import { helpdeskBConnector } from './connectors/helpdesk-b.ts';
import { hrServiceConnector } from './connectors/hr-service.ts';
import { inboxConnector } from './connectors/inbox.ts';
import { issueTrackerConnector } from './connectors/issue-tracker.ts';
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

/** The connector of every source type not read from local files, one module per type, in the spec's order. */
const CONNECTORS: Partial<Record<ConfigurableSourceTypeKey, Connector>> = {
  rest_api: restApiConnector,
  native_pipeline: nativePipelineConnector,
  spreadsheets: spreadsheetsConnector,
  social_ads: socialAdsConnector,
  web_analytics: webAnalyticsConnector,
  search_ads: searchAdsConnector,
  video_analytics: videoAnalyticsConnector,
  table_db: tableDbConnector,
  self_hosted_analytics: selfHostedAnalyticsConnector,
  crm_a: crmAConnector,
  crm_b: crmBConnector,
  helpdesk_a: helpdeskAConnector,
  crm_c: crmCConnector,
  helpdesk_b: helpdeskBConnector,
  recruiting: recruitingConnector,
  issue_tracker: issueTrackerConnector,
  task_tracker: taskTrackerConnector,
  payments: paymentsConnector,
  storefront: storefrontConnector,
  notes: notesConnector,
  inbox: inboxConnector,
  document_db: documentDbConnector,
  relational_db: relationalDbConnector,
  code_host: codeHostConnector,
  team_chat: teamChatConnector,
  event_stream: eventStreamConnector,
  cloud_stream: cloudStreamConnector,
  chess_games: chessGamesConnector,
  headless_cms: headlessCmsConnector,
  hr_service: hrServiceConnector,
};

export function connectorFor(source: SourceConfig): Connector | undefined {
  return CONNECTORS[source.type];
}
