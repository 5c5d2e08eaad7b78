import type { ConfigurableSourceTypeKey, SourceConfig } from '../config/index.ts';
import type { Connector } from './connector.ts';
import { codeHostConnector } from './connectors/code-host.ts';
import { crmAConnector } from './connectors/crm-a.ts';
import { documentDbConnector } from './connectors/document-db.ts';
import { eventStreamConnector } from './connectors/event-stream.ts';
import { headlessCmsConnector } from './connectors/headless-cms.ts';
import { notesConnector } from './connectors/notes.ts';
import { nativePipelineConnector } from './connectors/native-pipeline.ts';
import { paymentsConnector } from './connectors/payments.ts';
import { teamChatConnector } from './connectors/team-chat.ts';
import { tableDbConnector } from './connectors/table-db.ts';
import { taskTrackerConnector } from './connectors/task-tracker.ts';
import { relationalDbConnector } from './connectors/relational-db.ts';
import { spreadsheetsConnector } from './connectors/spreadsheets.ts';
import { chessGamesConnector } from './connectors/chess-games.ts';
import { crmCConnector } from './connectors/crm-c.ts';
import { helpdeskAConnector } from './connectors/helpdesk-a.ts';
import { helpdeskBConnector } from './connectors/helpdesk-b.ts';
import { webAnalyticsConnector } from './connectors/web-analytics.ts';
import { searchAdsConnector } from './connectors/search-ads.ts';
import { hrServiceConnector } from './connectors/hr-service.ts';
import { issueTrackerConnector } from './connectors/issue-tracker.ts';
import { recruitingConnector } from './connectors/recruiting.ts';
import { socialAdsConnector } from './connectors/social-ads.ts';
import { crmBConnector } from './connectors/crm-b.ts';
import { storefrontConnector } from './connectors/storefront.ts';
import { cloudStreamConnector } from './connectors/cloud-stream.ts';
import { selfHostedAnalyticsConnector } from './connectors/self-hosted-analytics.ts';
import { inboxConnector } from './connectors/inbox.ts';
import { videoAnalyticsConnector } from './connectors/video-analytics.ts';
import { restApiConnector } from './rest/rest-api-connector.ts';

/** The connector of every source type that is not read from files; one module per type. */
const CONNECTORS: Partial<Record<ConfigurableSourceTypeKey, Connector>> = {
  rest_api: restApiConnector,
  document_db: documentDbConnector,
  inbox: inboxConnector,
  event_stream: eventStreamConnector,
  cloud_stream: cloudStreamConnector,
  storefront: storefrontConnector,
  crm_b: crmBConnector,
  social_ads: socialAdsConnector,
  search_ads: searchAdsConnector,
  web_analytics: webAnalyticsConnector,
  helpdesk_a: helpdeskAConnector,
  helpdesk_b: helpdeskBConnector,
  crm_c: crmCConnector,
  recruiting: recruitingConnector,
  issue_tracker: issueTrackerConnector,
  hr_service: hrServiceConnector,
  self_hosted_analytics: selfHostedAnalyticsConnector,
  chess_games: chessGamesConnector,
  video_analytics: videoAnalyticsConnector,
  spreadsheets: spreadsheetsConnector,
  crm_a: crmAConnector,
  code_host: codeHostConnector,
  payments: paymentsConnector,
  team_chat: teamChatConnector,
  table_db: tableDbConnector,
  notes: notesConnector,
  task_tracker: taskTrackerConnector,
  headless_cms: headlessCmsConnector,
  relational_db: relationalDbConnector,
  native_pipeline: nativePipelineConnector,
};

export function connectorFor(source: SourceConfig): Connector | undefined {
  return CONNECTORS[source.type];
}
