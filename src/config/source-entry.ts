import { z } from 'zod';
import { closestMatch } from './closest-match.ts';
import { deepFreeze } from './deep-freeze.ts';
import { formatProblem, validate, type Validation } from './format-issues.ts';
import { ChessGamesSection } from './source-sections/chess-games.ts';
import { CloudStreamConfig } from './source-sections/cloud-stream-config.ts';
import { CodeHostSection } from './source-sections/code-host.ts';
import { CrmASection } from './source-sections/crm-a.ts';
import { CrmBSection } from './source-sections/crm-b.ts';
import { CrmCConfig } from './source-sections/crm-c-config.ts';
import { CsvSection } from './source-sections/csv.ts';
import { DocumentDbConfig } from './source-sections/document-db-config.ts';
import { EventStreamConfig } from './source-sections/event-stream-config.ts';
import { NonEmptyString, SourceName } from './source-sections/field-types.ts';
import { FilesystemSection } from './source-sections/filesystem.ts';
import { GenericConfig } from './source-sections/generic-config.ts';
import { HeadlessCmsConfig } from './source-sections/headless-cms-config.ts';
import { HelpdeskAConfig } from './source-sections/helpdesk-a-config.ts';
import { HelpdeskBConfig } from './source-sections/helpdesk-b-config.ts';
import { HrServiceConfig } from './source-sections/hr-service-config.ts';
import { IssueTrackerConfig } from './source-sections/issue-tracker-config.ts';
import { InboxConfig } from './source-sections/inbox-config.ts';
import { LocalFilesSection } from './source-sections/local-files.ts';
import { NativePipelineSection } from './source-sections/native-pipeline.ts';
import { NotesConfig } from './source-sections/notes-config.ts';
import { PaymentsSection } from './source-sections/payments.ts';
import { RecruitingConfig } from './source-sections/recruiting-config.ts';
import { RelationalDbConfig } from './source-sections/relational-db-config.ts';
import { RestApiSection } from './source-sections/rest-api.ts';
import { SelfHostedAnalyticsConfig } from './source-sections/self-hosted-analytics-config.ts';
import { SearchAdsSection } from './source-sections/search-ads.ts';
import { SocialAdsSection } from './source-sections/social-ads.ts';
import { SpreadsheetsSection } from './source-sections/spreadsheets.ts';
import { StorefrontConfig } from './source-sections/storefront-config.ts';
import { TableDbConfig } from './source-sections/table-db-config.ts';
import { TaskTrackerConfig } from './source-sections/task-tracker-config.ts';
import { TeamChatSection } from './source-sections/team-chat.ts';
import { VideoAnalyticsConfig } from './source-sections/video-analytics-config.ts';
import { WebAnalyticsSection } from './source-sections/web-analytics.ts';
import {
  SECTION_NAMES, SOURCE_TYPE_KEYS, SOURCE_TYPES, isRefusedSourceType, isSourceTypeKey, isTypedSourceType,
  type ConfigurableSourceTypeKey, type GenericSourceTypeKey, type TypedSourceTypeKey,
} from './source-types.ts';
import { describeKind, isMapping } from './yaml-value.ts';

const CommonFields = z.strictObject({
  name: SourceName,
  enabled: z.boolean().default(true),
  description: z.string().optional(),
  tags: z.array(NonEmptyString).default(() => []),
  /** Days re-loaded on an incremental sync; a full refresh ignores it. */
  lookback_days: z.int().min(0).optional(),
});
type CommonFields = z.output<typeof CommonFields>;

const SECTION_SCHEMAS = {
  local_files: LocalFilesSection,
  csv: CsvSection,
  filesystem: FilesystemSection,
  rest_api: RestApiSection,
  native_pipeline: NativePipelineSection,
  spreadsheets: SpreadsheetsSection,
  social_ads: SocialAdsSection,
  web_analytics: WebAnalyticsSection,
  search_ads: SearchAdsSection,
  crm_a: CrmASection,
  crm_b: CrmBSection,
  payments: PaymentsSection,
  code_host: CodeHostSection,
  team_chat: TeamChatSection,
  chess_games: ChessGamesSection,
} as const satisfies Record<TypedSourceTypeKey, z.ZodType>;

/** The generic types whose `generic_config` keys are pinned down; the others take any keys. */
const GENERIC_CONFIG_SCHEMAS = {
  document_db: DocumentDbConfig,
  event_stream: EventStreamConfig,
  inbox: InboxConfig,
  cloud_stream: CloudStreamConfig,
  storefront: StorefrontConfig,
  relational_db: RelationalDbConfig,
  helpdesk_a: HelpdeskAConfig,
  helpdesk_b: HelpdeskBConfig,
  crm_c: CrmCConfig,
  table_db: TableDbConfig,
  notes: NotesConfig,
  task_tracker: TaskTrackerConfig,
  headless_cms: HeadlessCmsConfig,
  recruiting: RecruitingConfig,
  issue_tracker: IssueTrackerConfig,
  hr_service: HrServiceConfig,
  self_hosted_analytics: SelfHostedAnalyticsConfig,
  video_analytics: VideoAnalyticsConfig,
} as const satisfies Partial<Record<GenericSourceTypeKey, z.ZodType>>;
type PinnedGenericKey = keyof typeof GENERIC_CONFIG_SCHEMAS;

type GenericConfigOf<Key extends GenericSourceTypeKey> =
  Key extends PinnedGenericKey ? z.output<(typeof GENERIC_CONFIG_SCHEMAS)[Key]> : GenericConfig;

/** native_pipeline names its pipeline and dataset after the source unless told otherwise. */
type ResolvedNativePipelineSection = NativePipelineSection & { pipeline_name: string; dataset_name: string };

type SectionOf<Key extends TypedSourceTypeKey> =
  Key extends 'native_pipeline' ? ResolvedNativePipelineSection : z.output<(typeof SECTION_SCHEMAS)[Key]>;

type CommonFieldsOf<Key extends ConfigurableSourceTypeKey> = { name: string; type: Key } & Omit<CommonFields, 'name'>;

type TypedSourceConfig = {
  [Key in TypedSourceTypeKey]: CommonFieldsOf<Key> & { [Section in Key]: SectionOf<Key> };
}[TypedSourceTypeKey];

type GenericSourceConfig = {
  [Key in GenericSourceTypeKey]: CommonFieldsOf<Key> & { generic_config: GenericConfigOf<Key> };
}[GenericSourceTypeKey];

type DeepReadonly<T> = T extends readonly (infer Item)[]
  ? readonly DeepReadonly<Item>[]
  : T extends object ? { readonly [Key in keyof T]: DeepReadonly<T[Key]> } : T;

/** One source of sources.yml, defaults applied: narrow on `type` to reach its section (`source.rest_api`, `source.generic_config`). */
export type SourceConfig = DeepReadonly<TypedSourceConfig | GenericSourceConfig>;

export type SourceConfigOf<Key extends ConfigurableSourceTypeKey> = Extract<SourceConfig, { readonly type: Key }>;

/** Parses the item at `at` of the sources list, or returns every problem it has. */
export function parseSourceEntry(entry: unknown, at: readonly PropertyKey[], label: string): Validation<SourceConfig> {
  if (!isMapping(entry)) {
    return { success: false, problems: [formatProblem(label, at, `expected mapping, got ${describeKind(entry)}`)] };
  }
  const type = checkType(entry.type, [...at, 'type'], label);
  const common = validate(CommonFields, omitFields(entry, ['type', ...SECTION_NAMES]), label, at);
  const problems = [...(common.success ? [] : common.problems), ...type.problems];
  if (type.key === undefined) return { success: false, problems };

  const sectionName = SOURCE_TYPES[type.key].section;
  problems.push(...checkSectionPlacement(entry, type.key, at, label));
  if (!Object.hasOwn(entry, sectionName)) return { success: false, problems };

  // `local_files:` with nothing under it reads as null; it means an empty section.
  const section = validate(sectionSchema(type.key), entry[sectionName] ?? {}, label, [...at, sectionName]);
  if (!section.success) problems.push(...section.problems);
  if (!common.success || !section.success || problems.length > 0) return { success: false, problems };
  return { success: true, data: assembleSource(common.data, type.key, section.data) };
}

function checkType(
  value: unknown, at: readonly PropertyKey[], label: string,
): { key: ConfigurableSourceTypeKey | undefined; problems: string[] } {
  const refuse = (message: string) => ({ key: undefined, problems: [formatProblem(label, at, message)] });
  if (value === undefined) return refuse('required');
  if (typeof value !== 'string') return refuse(`expected string, got ${describeKind(value)}`);
  if (!isSourceTypeKey(value)) {
    const suggestion = closestMatch(value, SOURCE_TYPE_KEYS);
    return refuse(`unknown source type ${JSON.stringify(value)}${suggestion === undefined ? '' : `; did you mean ${suggestion}?`}`);
  }
  if (isRefusedSourceType(value)) return refuse(`${value} is refused: ${SOURCE_TYPES[value].wizardDisabledReason ?? ''}`);
  return { key: value, problems: [] };
}

/** Exactly one section, the type's own: a section of another type is a mistake worth naming, not an unknown field. */
function checkSectionPlacement(
  entry: Readonly<Record<string, unknown>>, type: ConfigurableSourceTypeKey, at: readonly PropertyKey[], label: string,
): string[] {
  const expected = SOURCE_TYPES[type].section;
  const foreign = SECTION_NAMES.filter((name) => name !== expected && Object.hasOwn(entry, name));
  if (!Object.hasOwn(entry, expected)) {
    const instead = foreign.length === 0 ? '' : `, not ${foreign.map((name) => `${name}:`).join(' or ')}`;
    return [formatProblem(label, at, `a ${type} source needs a ${expected}: section${instead}`)];
  }
  return foreign.map((name) => formatProblem(label, [...at, name], `a ${type} source takes no ${name}: section`));
}

export function sectionSchema(type: ConfigurableSourceTypeKey): z.ZodType {
  if (isTypedSourceType(type)) return SECTION_SCHEMAS[type];
  return isPinnedGeneric(type) ? GENERIC_CONFIG_SCHEMAS[type] : GenericConfig;
}

function isPinnedGeneric(type: GenericSourceTypeKey): type is PinnedGenericKey {
  return Object.hasOwn(GENERIC_CONFIG_SCHEMAS, type);
}

function assembleSource(common: CommonFields, type: ConfigurableSourceTypeKey, section: unknown): SourceConfig {
  const { name, ...rest } = common;
  const sectionName = SOURCE_TYPES[type].section;
  const resolved = type === 'native_pipeline' ? withPipelineNames(section as NativePipelineSection, name) : section;
  const source: Record<string, unknown> = { name, type, ...rest, [sectionName]: resolved };
  // The schema chosen by `type` produced `section`; TypeScript cannot follow that correlation.
  return deepFreeze(source) as SourceConfig;
}

function withPipelineNames(section: NativePipelineSection, sourceName: string): ResolvedNativePipelineSection {
  return { ...section, pipeline_name: section.pipeline_name ?? sourceName, dataset_name: section.dataset_name ?? sourceName };
}

function omitFields(entry: Readonly<Record<string, unknown>>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entry).filter(([field]) => !fields.includes(field)));
}
