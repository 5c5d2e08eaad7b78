import { chessGamesType } from './chess-games.ts';
import { cloudStreamType } from './cloud-stream.ts';
import { codeHostType } from './code-host.ts';
import { crmAType } from './crm-a.ts';
import { crmBType } from './crm-b.ts';
import { crmCType } from './crm-c.ts';
import { csvType } from './csv.ts';
import { csvUrlType } from './csv-url.ts';
import { documentDbType } from './document-db.ts';
import { eventStreamType } from './event-stream.ts';
import { filesystemType } from './filesystem.ts';
import { headlessCmsType } from './headless-cms.ts';
import { helpdeskAType } from './helpdesk-a.ts';
import { helpdeskBType } from './helpdesk-b.ts';
import { hrServiceType } from './hr-service.ts';
import { inboxType } from './inbox.ts';
import { issueTrackerType } from './issue-tracker.ts';
import { jsonUrlType } from './json-url.ts';
import { localFilesType } from './local-files.ts';
import { nativePipelineType } from './native-pipeline.ts';
import { notesType } from './notes.ts';
import { paymentsType } from './payments.ts';
import { recruitingType } from './recruiting.ts';
import { sqlDatabaseType, webScraperType } from './refused-types.ts';
import { relationalDbType } from './relational-db.ts';
import { restApiType } from './rest-api.ts';
import { searchAdsType } from './search-ads.ts';
import { selfHostedAnalyticsType } from './self-hosted-analytics.ts';
import { socialAdsType } from './social-ads.ts';
import { spreadsheetsType } from './spreadsheets.ts';
import { storefrontType } from './storefront.ts';
import { tableDbType } from './table-db.ts';
import { taskTrackerType } from './task-tracker.ts';
import { teamChatType } from './team-chat.ts';
import { videoAnalyticsType } from './video-analytics.ts';
import { webAnalyticsType } from './web-analytics.ts';
import type { SourceTypeDefinition } from '../type-definition/index.ts';

/**
 * Every source type of the spec, in the spec's order, then the types added since: the one list config's registry
 * (`SOURCE_TYPES`, section parsing) and the loaders are derived from. A type is one module of this folder,
 * declaring its facts, its section's schema and its connector or loader (`defineSourceType`); the folder's other
 * modules are helpers several types share. Adding a type is adding its module and its entry here.
 */
export const SOURCE_TYPE_DEFINITIONS = [
  localFilesType, restApiType, nativePipelineType, csvType, filesystemType,
  spreadsheetsType, socialAdsType, webAnalyticsType, searchAdsType, videoAnalyticsType, tableDbType, selfHostedAnalyticsType,
  crmAType, crmBType, helpdeskAType, crmCType, helpdeskBType, recruitingType, issueTrackerType, taskTrackerType,
  paymentsType, storefrontType,
  notesType, inboxType,
  documentDbType, relationalDbType, sqlDatabaseType,
  codeHostType,
  teamChatType,
  eventStreamType, cloudStreamType,
  chessGamesType, headlessCmsType, hrServiceType, webScraperType,
  csvUrlType, jsonUrlType,
] as const satisfies readonly SourceTypeDefinition[];

export type { NativePipelineSection, ResolvedNativePipelineSection } from './native-pipeline.ts';
