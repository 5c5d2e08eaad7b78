import { z } from 'zod';
import { closestMatch, deepFreeze, describeKind, formatProblem, isMapping, validate, type Validation } from '../../config/index.ts';
import { NonEmptyString, SourceName } from '../type-definition/index.ts';
import type { NativePipelineSection, ResolvedNativePipelineSection } from '../types/index.ts';
import {
  SECTION_NAMES, SOURCE_TYPE_KEYS, SOURCE_TYPES, definitionOf, isRefusedSourceType, isSourceTypeKey,
  type ConfigurableSourceTypeKey, type DefinitionOf, type GenericSourceTypeKey, type TypedSourceTypeKey,
} from './source-types.ts';

/** How long after its last successful sync a source is stale: a warning, then a critical issue (and a source_stale alert). */
const Freshness = z.strictObject({
  warn_after_hours: z.number().positive().optional(),
  error_after_hours: z.number().positive().optional(),
}).refine((freshness) => freshness.warn_after_hours !== undefined || freshness.error_after_hours !== undefined, {
  message: 'set warn_after_hours, error_after_hours or both',
}).refine((freshness) => (freshness.warn_after_hours ?? 0) <= (freshness.error_after_hours ?? Infinity), {
  message: 'error_after_hours must not be less than warn_after_hours', path: ['error_after_hours'],
});

/** How a source's staging models name their columns: `snake_case` (typed without quotes) or `original` (as the raw table has them). */
export const STAGING_COLUMN_NAMES = ['snake_case', 'original'] as const;
export type StagingColumnNames = (typeof STAGING_COLUMN_NAMES)[number];

const CommonFields = z.strictObject({
  name: SourceName,
  enabled: z.boolean().default(true),
  description: z.string().optional(),
  tags: z.array(NonEmptyString).default(() => []),
  /** Days re-loaded on an incremental sync; a full refresh ignores it. */
  lookback_days: z.int().min(0).optional(),
  freshness: Freshness.optional(),
  /** Left out: `original` (stagingColumnNamesOf), so no model over the staging of a source older than the option breaks. */
  staging_column_names: z.enum(STAGING_COLUMN_NAMES).optional(),
});
type CommonFields = z.output<typeof CommonFields>;

type GenericConfigOf<Key extends GenericSourceTypeKey> = z.output<DefinitionOf<Key>['schema']>;

type SectionOf<Key extends TypedSourceTypeKey> =
  Key extends 'native_pipeline' ? ResolvedNativePipelineSection : z.output<DefinitionOf<Key>['schema']>;

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

/** How the source's staging models name their columns: `original` when sources.yml does not say (or no longer has the source). */
export function stagingColumnNamesOf(source: SourceConfig | undefined): StagingColumnNames {
  return source?.staging_column_names ?? 'original';
}

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
  return definitionOf(type).schema;
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
