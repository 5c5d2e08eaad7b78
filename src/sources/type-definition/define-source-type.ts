import type { z } from 'zod';
import type { Connector } from '../connector.ts';
import type { SourceLoader } from '../source-loader.ts';

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

export const GENERIC_CONFIG_SECTION = 'generic_config';

/** Resources a type loads when `resources` is absent, and every one it can load. */
export interface ResourceLists {
  readonly default: readonly string[];
  readonly available: readonly string[];
}

/**
 * How a type's data is read: a connector that extracts records or files (loaded from staging by the engine),
 * or a loader of its own (file types, whose files DuckDB reads in place).
 */
type Reader = { readonly connector: Connector; readonly loader?: never } | { readonly loader: SourceLoader; readonly connector?: never };

/**
 * A type `quarry source add` offers, or one it does not, with the reason it gives; one the spec's wizard hides may
 * still be offered by the form and `quarry source add`, saying why (`offeredBecause`).
 */
type WizardFacts = { readonly wizard: true } | { readonly wizard: false; readonly wizardDisabledReason: string; readonly offeredBecause?: string };

interface CommonFacts<Key extends string> {
  readonly key: Key;
  readonly category: Category;
  readonly incremental: boolean;
}

/**
 * Whether a source of the type runs code of the project's choosing on the server (a Python module): configuring
 * one is configuring code, which only an admin does.
 */
interface CodeFacts {
  readonly runsCode: boolean;
}

/**
 * A type sources.yml accepts: its facts and the schema of its section, which is named after the type
 * (`own`) or is the shared `generic_config`.
 */
export type ConfigurableDefinition<Key extends string, Schema extends z.ZodType, Section extends 'own' | 'generic'> =
  CommonFacts<Key> & CodeFacts & WizardFacts & Reader & {
    readonly refused: false;
    readonly authType: AuthType;
    readonly section: Section;
    readonly schema: Schema;
    readonly resources: ResourceLists | null;
  };

/** A type the spec names that sources.yml refuses, saying why. */
export interface RefusedDefinition<Key extends string> extends CommonFacts<Key>, CodeFacts {
  readonly refused: true;
  readonly runsCode: false;
  readonly wizard: false;
  readonly wizardDisabledReason: string;
  readonly authType: null;
  readonly section: 'generic';
  readonly schema: null;
  readonly resources: null;
}

export type SourceTypeDefinition =
  | ConfigurableDefinition<string, z.ZodType, 'own' | 'generic'>
  | RefusedDefinition<string>;

type ConfigurableFacts<Key extends string, Schema extends z.ZodType, Section extends 'own' | 'generic'> =
  CommonFacts<Key> & WizardFacts & Reader & {
    readonly authType: AuthType;
    readonly section: Section;
    readonly schema: Schema;
    readonly resources?: ResourceLists;
    readonly runsCode?: true;
  };

/** Declares a source type in its module of `sources/types/`, whose index lists every declaration once. */
export function defineSourceType<const Key extends string, Schema extends z.ZodType, const Section extends 'own' | 'generic'>(
  facts: ConfigurableFacts<Key, Schema, Section>,
): ConfigurableDefinition<Key, Schema, Section> {
  return { ...facts, refused: false, resources: facts.resources ?? null, runsCode: facts.runsCode ?? false };
}

/** Declares a type sources.yml recognises by name only to refuse it with `reason`. */
export function refuseSourceType<const Key extends string>(
  facts: CommonFacts<Key> & { readonly reason: string },
): RefusedDefinition<Key> {
  const { reason, ...common } = facts;
  return {
    ...common, refused: true, runsCode: false, wizard: false, wizardDisabledReason: reason, authType: null, section: 'generic', schema: null, resources: null,
  };
}
