import { checkEnvValue, removeEnvValue, setEnvValue, type ProjectPaths } from '../../config/index.ts';
import { InvalidRequestError } from '../../errors.ts';
import { MASK } from './shown-source-config.ts';
import { SOURCE_TYPES } from './source-types.ts';
import { loadSources } from './sources-file.ts';
import { assertOwnVariables, credentialVariables } from './source-variables.ts';
import { assertSourcesFileUnchanged } from './sources-file-version.ts';
import type { SourceConfig } from './sources-config.ts';
import { readSourceSection, removeSourceEntry, replaceSourceSection, type SourceCheck } from './sources-file-edits.ts';

/** A new section for an existing source, as the browser's form sends it; its type and name stay. */
export interface SourceEdit {
  readonly name: string;
  /** The type's section, only the fields that differ from the defaults. */
  readonly section: Readonly<Record<string, unknown>>;
  /** Credentials to set or replace, by variable name, for `.env` only; a variable left out keeps its value. */
  readonly secrets: ReadonlyMap<string, string>;
}

function existingSource(paths: ProjectPaths, name: string): SourceConfig {
  const source = loadSources(paths).find((candidate) => candidate.name === name);
  if (source === undefined) throw new InvalidRequestError(`There is no source named "${name}" in sources.yml`);
  return source;
}

/**
 * Replaces a source's section: checks (with `expectedVersion`) that sources.yml is still the one the caller read,
 * then writes the validated and `check`ed section in place (comments and order kept) and the credentials given to .env.
 * A header shown masked keeps the value the file holds. Nothing is written when anything is refused.
 */
export function editSourceInProject(paths: ProjectPaths, edit: SourceEdit, check: SourceCheck, expectedVersion: string): SourceConfig {
  assertSourcesFileUnchanged(paths, expectedVersion);
  const sectionName = SOURCE_TYPES[existingSource(paths, edit.name).type].section;
  for (const [variable, value] of edit.secrets) checkEnvValue(variable, value);
  const section = withMaskedHeadersKept(edit.section, readSourceSection(paths, edit.name, sectionName));
  const changed = replaceSourceSection(paths, edit.name, sectionName, section, (source) => {
    check(source);
    assertOwnVariables(paths, source, edit.secrets.keys());
  });
  for (const [variable, value] of edit.secrets) setEnvValue(paths, variable, value);
  return changed;
}

function withMaskedHeadersKept(section: Readonly<Record<string, unknown>>, current: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const headers = section.headers;
  const currentHeaders = current.headers;
  if (!isRecord(headers) || !isRecord(currentHeaders)) return { ...section };
  const kept = Object.fromEntries(Object.entries(headers).map(([key, value]) => [key, value === MASK && key in currentHeaders ? currentHeaders[key] : value]));
  return { ...section, headers: kept };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Removes a source from sources.yml (version-checked, comments kept). With `removeCredentials`, the variables it
 * alone reads are removed from .env too (one another source still reads stays). Returns the variables removed.
 */
export function removeSourceFromProject(paths: ProjectPaths, name: string, expectedVersion: string, options: { removeCredentials: boolean }): string[] {
  assertSourcesFileUnchanged(paths, expectedVersion);
  const sources = loadSources(paths);
  const removed = existingSource(paths, name);
  removeSourceEntry(paths, name);
  if (!options.removeCredentials) return [];
  const stillRead = new Set(sources.filter((source) => source.name !== name).flatMap(credentialVariables));
  const variables = credentialVariables(removed).filter((variable) => !stillRead.has(variable));
  for (const variable of variables) removeEnvValue(paths, variable);
  return variables;
}
