import { deepFreeze } from './deep-freeze.ts';
import { chessGamesType } from './source-sections/chess-games.ts';
import { cloudStreamType } from './source-sections/cloud-stream-config.ts';
import { codeHostType } from './source-sections/code-host.ts';
import { crmAType } from './source-sections/crm-a.ts';
import { crmBType } from './source-sections/crm-b.ts';
import { crmCType } from './source-sections/crm-c-config.ts';
import { csvUrlType } from './source-sections/csv-url.ts';
import { csvType } from './source-sections/csv.ts';
import { documentDbType } from './source-sections/document-db-config.ts';
import { eventStreamType } from './source-sections/event-stream-config.ts';
import { filesystemType } from './source-sections/filesystem.ts';
import { headlessCmsType } from './source-sections/headless-cms-config.ts';
import { helpdeskAType } from './source-sections/helpdesk-a-config.ts';
import { helpdeskBType } from './source-sections/helpdesk-b-config.ts';
import { hrServiceType } from './source-sections/hr-service-config.ts';
import { inboxType } from './source-sections/inbox-config.ts';
import { issueTrackerType } from './source-sections/issue-tracker-config.ts';
import { localFilesType } from './source-sections/local-files.ts';
import { nativePipelineType } from './source-sections/native-pipeline.ts';
import { notesType } from './source-sections/notes-config.ts';
import { paymentsType } from './source-sections/payments.ts';
import { recruitingType } from './source-sections/recruiting-config.ts';
import { sqlDatabaseType, webScraperType } from './source-sections/refused-types.ts';
import { relationalDbType } from './source-sections/relational-db-config.ts';
import { restApiType } from './source-sections/rest-api.ts';
import { searchAdsType } from './source-sections/search-ads.ts';
import { selfHostedAnalyticsType } from './source-sections/self-hosted-analytics-config.ts';
import { socialAdsType } from './source-sections/social-ads.ts';
import { spreadsheetsType } from './source-sections/spreadsheets.ts';
import { storefrontType } from './source-sections/storefront-config.ts';
import { tableDbType } from './source-sections/table-db-config.ts';
import { taskTrackerType } from './source-sections/task-tracker-config.ts';
import { teamChatType } from './source-sections/team-chat.ts';
import { videoAnalyticsType } from './source-sections/video-analytics-config.ts';
import { webAnalyticsType } from './source-sections/web-analytics.ts';
import {
  GENERIC_CONFIG_SECTION, type AuthType, type Category, type ResourceLists, type SourceTypeDefinition,
} from './source-type-definition.ts';

export { AUTH_TYPES, CATEGORIES, GENERIC_CONFIG_SECTION, type AuthType, type Category, type ResourceLists } from './source-type-definition.ts';

/**
 * Every source type of the spec, in the spec's order: the one list the registries below are derived from.
 * A type is declared once, in the module of its section schema (`defineSourceType`).
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
  csvUrlType,
] as const satisfies readonly SourceTypeDefinition[];

type Definition = (typeof SOURCE_TYPE_DEFINITIONS)[number];
export type SourceTypeKey = Definition['key'];
/** The declaration of the type `Key`, its schema's own type included. */
export type DefinitionOf<Key extends SourceTypeKey> = Extract<Definition, { readonly key: Key }>;

export const SOURCE_TYPE_KEYS: readonly SourceTypeKey[] = SOURCE_TYPE_DEFINITIONS.map((definition) => definition.key);

/** The types whose fields have a section of their own, named after the type. */
export type TypedSourceTypeKey = Extract<Definition, { readonly section: 'own' }>['key'];
/** Recognised values of `type` that sources.yml refuses: they have no registry entry. */
export type RefusedSourceTypeKey = Extract<Definition, { readonly refused: true }>['key'];
export type GenericSourceTypeKey = Exclude<SourceTypeKey, TypedSourceTypeKey | RefusedSourceTypeKey>;
export type ConfigurableSourceTypeKey = Exclude<SourceTypeKey, RefusedSourceTypeKey>;

export type SectionName = TypedSourceTypeKey | typeof GENERIC_CONFIG_SECTION;
export const SECTION_NAMES: readonly SectionName[] = [
  ...SOURCE_TYPE_DEFINITIONS.filter((definition) => definition.section === 'own').map((definition) => definition.key),
  GENERIC_CONFIG_SECTION,
];

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

function describeSourceType(definition: Definition): SourceType {
  return {
    key: definition.key,
    category: definition.category,
    authType: definition.authType,
    wizard: definition.wizard,
    incremental: definition.incremental,
    hasRegistryEntry: !definition.refused,
    wizardDisabledReason: definition.wizard ? null : definition.wizardDisabledReason,
    section: definition.section === 'own' ? definition.key : GENERIC_CONFIG_SECTION,
    resources: definition.resources,
  };
}

/** Every source type of the spec, keyed by its type key. */
export const SOURCE_TYPES: Readonly<Record<SourceTypeKey, SourceType>> = deepFreeze(
  Object.fromEntries(SOURCE_TYPE_DEFINITIONS.map((definition) => [definition.key, describeSourceType(definition)])) as Record<SourceTypeKey, SourceType>,
);

const DEFINITIONS = new Map<string, Definition>(SOURCE_TYPE_DEFINITIONS.map((definition) => [definition.key, definition]));

/** The declaration of a configurable type, whose schema parses its section. */
export function definitionOf<Key extends ConfigurableSourceTypeKey>(key: Key): DefinitionOf<Key> {
  return DEFINITIONS.get(key) as DefinitionOf<Key>;
}

export function isSourceTypeKey(value: string): value is SourceTypeKey {
  return DEFINITIONS.has(value);
}

export function isTypedSourceType(key: SourceTypeKey): key is TypedSourceTypeKey {
  return DEFINITIONS.get(key)?.section === 'own';
}

export function isRefusedSourceType(key: SourceTypeKey): key is RefusedSourceTypeKey {
  return DEFINITIONS.get(key)?.refused === true;
}
