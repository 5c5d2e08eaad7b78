import { deepFreeze } from '../../config/index.ts';
import {
  GENERIC_CONFIG_SECTION, type AuthType, type Category, type ResourceLists,
} from '../type-definition/index.ts';
import { SOURCE_TYPE_DEFINITIONS } from '../types/index.ts';

export { AUTH_TYPES, CATEGORIES, GENERIC_CONFIG_SECTION, type AuthType, type Category, type ResourceLists } from '../type-definition/index.ts';

/** Every source type, declared once each in `sources/types/`: the registries below are derived from their list. */
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
  /** Why the spec's wizard does not offer the type; null for wizard-enabled types. */
  readonly wizardDisabledReason: string | null;
  /** Why the form and `quarry source add` offer it all the same (a type the spec's wizard hides); null otherwise. */
  readonly offeredBecause: string | null;
  /** The key of the section holding the type's fields in sources.yml. */
  readonly section: SectionName;
  readonly resources: ResourceLists | null;
  /** A source of the type runs code on the server: only an admin configures one. */
  readonly runsCode: boolean;
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
    offeredBecause: definition.wizard || definition.refused ? null : definition.offeredBecause ?? null,
    section: definition.section === 'own' ? definition.key : GENERIC_CONFIG_SECTION,
    resources: definition.resources,
    runsCode: definition.runsCode,
  };
}

/** Whether the form and `quarry source add` add the type: wizard-enabled, or offered all the same. */
export function isAddable(type: SourceType): boolean {
  return type.wizard || type.offeredBecause !== null;
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
