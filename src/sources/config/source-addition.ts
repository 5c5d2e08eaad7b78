import { checkEnvValue, closestMatch, setEnvValue, type ProjectPaths } from '../../config/index.ts';
import { InvalidRequestError } from '../../errors.ts';
import { isAddable, isSourceTypeKey, SOURCE_TYPE_KEYS, SOURCE_TYPES, type SourceTypeKey } from './source-types.ts';
import { SOURCE_NAME_PATTERN } from '../type-definition/index.ts';
import { loadSources } from './sources-file.ts';
import { assertSourcesFileUnchanged } from './sources-file-version.ts';
import type { SourceConfig } from './sources-config.ts';
import { parseSourceEntry, type StagingColumnNames } from './source-entry.ts';
import { assertOwnVariables } from './source-variables.ts';
import { addSourceEntry, type SourceCheck } from './sources-file-edits.ts';

/** A source to add, as the CLI's wizard and flags and the browser's form describe it. */
export interface SourceAddition {
  readonly name: string;
  readonly type: string;
  /** The type's section, only the fields that differ from the defaults. */
  readonly section: Readonly<Record<string, unknown>>;
  /** Credentials by variable name, for `.env` only. */
  readonly secrets: ReadonlyMap<string, string>;
}

/** The type key, when it is one the wizard and the form add; else why not. */
export function addableType(value: string): SourceTypeKey {
  if (!isSourceTypeKey(value)) {
    const suggestion = closestMatch(value, SOURCE_TYPE_KEYS);
    throw new InvalidRequestError(`Unknown source type "${value}"${suggestion === undefined ? '' : `; did you mean ${suggestion}?`}`);
  }
  const type = SOURCE_TYPES[value];
  if (!isAddable(type)) throw new InvalidRequestError(`${value} is not added with \`quarry source add\` or the Add source form: ${type.wizardDisabledReason ?? ''}. Add it to sources.yml by hand.`);
  return value;
}

/** Why `name` cannot name a new source, or undefined when it can. */
export function newSourceNameProblem(name: string, existing: readonly string[]): string | undefined {
  if (!SOURCE_NAME_PATTERN.test(name)) return `"${name}" is not a valid source name: use lowercase letters, digits and underscores, starting with a letter`;
  if (existing.includes(name)) return `A source named "${name}" already exists`;
  return undefined;
}

/**
 * Adds a source: checks (with `expectedVersion`) that sources.yml is still the one the caller read, the name,
 * the type and the credentials, then appends it to sources.yml (validated, `check`ed, comments and order kept; its
 * staging models in snake_case) and writes the credentials to .env. Nothing is written when anything is refused.
 */
export function addSourceToProject(paths: ProjectPaths, addition: SourceAddition, check: SourceCheck, expectedVersion?: string): SourceConfig {
  // First: a form read from a file that changed since is out of date, whatever it holds.
  assertSourcesFileUnchanged(paths, expectedVersion);
  const type = addableType(addition.type);
  const problem = newSourceNameProblem(addition.name, loadSources(paths).map((source) => source.name));
  if (problem !== undefined) throw new InvalidRequestError(problem);
  for (const [variable, value] of addition.secrets) checkEnvValue(variable, value);
  // Written out, not left to the default: a source without the field keeps the original names it always had.
  const entry = { name: addition.name, type, staging_column_names: 'snake_case' satisfies StagingColumnNames, [SOURCE_TYPES[type].section]: addition.section };
  const added = addSourceEntry(paths, entry, (source) => {
    check(source);
    assertOwnVariables(paths, source, addition.secrets.keys());
  });
  for (const [variable, value] of addition.secrets) setEnvValue(paths, variable, value);
  return added;
}

/**
 * The source a form describes before it is saved, validated as sources.yml would be, for a connection test
 * that writes nothing; InvalidRequestError with each problem when it would not be accepted.
 */
export function candidateSource(name: string, type: string, section: Readonly<Record<string, unknown>>): SourceConfig {
  const key = addableType(type);
  if (!SOURCE_NAME_PATTERN.test(name)) throw new InvalidRequestError(`"${name}" is not a valid source name: use lowercase letters, digits and underscores, starting with a letter`);
  const parsed = parseSourceEntry({ name, type: key, [SOURCE_TYPES[key].section]: section }, [], 'the form');
  if (!parsed.success) throw new InvalidRequestError(parsed.problems.join('; '));
  return parsed.data;
}
