import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { isMap, isSeq, parseDocument } from 'yaml';
import { ConfigError } from '../errors.ts';
import { parseOrThrow } from './format-issues.ts';
import { ProjectConfigSchema } from './project-config.ts';
import { isMissingFile, readProjectFile } from './project-files.ts';
import type { ProjectPaths } from './project-paths.ts';
import { parseSources, type SourceConfig } from './sources-config.ts';

/** Replaces a file through a temp file, fsync and rename, so a crash leaves the old or the new file, never half. */
export function writeFileAtomically(file: string, content: string, mode: number): void {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const descriptor = openSync(temporary, 'wx', mode);
    try {
      writeSync(descriptor, content);
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    renameSync(temporary, file);
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** Sets one section of project.yml, keeping its comments; the result is validated before it is written. */
export function setProjectSetting(paths: ProjectPaths, keyPath: readonly string[], value: unknown): void {
  const document = parseDocument(readProjectFile(paths.projectFile, paths));
  document.setIn(keyPath, value);
  const label = path.relative(paths.root, paths.projectFile);
  parseOrThrow(ProjectConfigSchema, document.toJS(), label);
  writeFileAtomically(paths.projectFile, document.toString(), 0o644);
}

const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

/** Throws ConfigError when NAME=value cannot be written to .env as it is; lets callers check before writing anything. */
export function checkEnvValue(name: string, value: string): void {
  if (!ENV_NAME.test(name)) throw new ConfigError([`${name} is not an environment variable name`]);
  if (/[\r\n']/.test(value)) throw new ConfigError([`The value for ${name} must be one line without single quotes`]);
}

/** Sets NAME=value in the project's .env (mode 0600), replacing an earlier line for the same name. */
export function setEnvValue(paths: ProjectPaths, name: string, value: string): void {
  checkEnvValue(name, value);
  let lines: string[] = [];
  try {
    lines = readFileSync(paths.envFile, 'utf8').split('\n');
  } catch (error) {
    if (!isMissingFile(error)) throw error;
  }
  const kept = lines.filter((line) => !line.startsWith(`${name}=`) && line !== '');
  kept.push(`${name}='${value}'`);
  writeFileAtomically(paths.envFile, `${kept.join('\n')}\n`, 0o600);
}

/** A check of a source about to be written beyond what sources.yml's schema says; it throws to refuse the write. */
export type SourceCheck = (source: SourceConfig) => void;

/**
 * Appends a source to sources.yml, keeping the file's comments; the whole file is validated first, so a bad
 * entry (or a duplicate name) is refused with located problems and nothing is written. Returns the parsed source.
 */
export function addSourceEntry(paths: ProjectPaths, entry: Readonly<Record<string, unknown>>, check: SourceCheck): SourceConfig {
  const document = parseDocument(readProjectFile(paths.sourcesFile, paths));
  const sources = document.get('sources');
  if (isSeq(sources)) {
    sources.items.push(document.createNode(entry));
    sources.flow = false; // a new project's `sources: []` would otherwise stay on one line
  }
  else document.set('sources', document.createNode([entry]));
  const text = document.toString();
  const parsed = parseSources(text, path.relative(paths.root, paths.sourcesFile));
  const added = parsed.find((source) => source.name === entry.name);
  if (added === undefined) throw new ConfigError([`The source ${String(entry.name)} was not written`]);
  check(added);
  writeFileAtomically(paths.sourcesFile, text, 0o644);
  return added;
}

/** Sets a source's `enabled` in sources.yml, keeping the file's comments; validated before it is written. */
export function setSourceEnabled(paths: ProjectPaths, name: string, enabled: boolean): void {
  const { document, index } = findSourceEntry(paths, name);
  document.setIn(['sources', index, 'enabled'], enabled);
  const text = document.toString();
  parseSources(text, path.relative(paths.root, paths.sourcesFile));
  writeFileAtomically(paths.sourcesFile, text, 0o644);
}

/** The index of `name` in sources.yml's list, with the parsed document, or ConfigError when it is not there. */
function findSourceEntry(paths: ProjectPaths, name: string): { document: ReturnType<typeof parseDocument>; index: number } {
  const document = parseDocument(readProjectFile(paths.sourcesFile, paths));
  const sources = document.get('sources');
  const index = isSeq(sources) ? sources.items.findIndex((item) => isMap(item) && item.get('name') === name) : -1;
  if (index < 0) throw new ConfigError([`The source ${name} is not in sources.yml`]);
  return { document, index };
}

/** A source's section as sources.yml holds it (defaults not applied), for a form to show. */
export function readSourceSection(paths: ProjectPaths, name: string, sectionName: string): Record<string, unknown> {
  const { document, index } = findSourceEntry(paths, name);
  const section: unknown = document.getIn(['sources', index, sectionName]);
  const value: unknown = isMap(section) ? section.toJS(document) : {};
  return value !== null && typeof value === 'object' ? value as Record<string, unknown> : {};
}

/**
 * Replaces a source's section in sources.yml, keeping the file's comments, the entry's place and its other
 * fields; the whole file is validated before it is written. Returns the parsed source.
 */
export function replaceSourceSection(
  paths: ProjectPaths, name: string, sectionName: string, section: Readonly<Record<string, unknown>>, check: SourceCheck,
): SourceConfig {
  const { document, index } = findSourceEntry(paths, name);
  document.setIn(['sources', index, sectionName], document.createNode(section));
  const text = document.toString();
  const parsed = parseSources(text, path.relative(paths.root, paths.sourcesFile));
  const changed = parsed.find((source) => source.name === name);
  if (changed === undefined) throw new ConfigError([`The source ${name} was not written`]);
  check(changed);
  writeFileAtomically(paths.sourcesFile, text, 0o644);
  return changed;
}

/** Removes a source's entry from sources.yml, keeping the rest of the file and its comments. */
export function removeSourceEntry(paths: ProjectPaths, name: string): void {
  const { document, index } = findSourceEntry(paths, name);
  document.deleteIn(['sources', index]);
  const text = document.toString();
  parseSources(text, path.relative(paths.root, paths.sourcesFile));
  writeFileAtomically(paths.sourcesFile, text, 0o644);
}

/** Removes NAME's line from the project's .env; nothing happens when it has none. */
export function removeEnvValue(paths: ProjectPaths, name: string): void {
  let lines: string[];
  try {
    lines = readFileSync(paths.envFile, 'utf8').split('\n');
  } catch (error) {
    if (isMissingFile(error)) return;
    throw error;
  }
  const kept = lines.filter((line) => !line.startsWith(`${name}=`) && line !== '');
  if (kept.length === lines.filter((line) => line !== '').length) return;
  writeFileAtomically(paths.envFile, kept.length === 0 ? '' : `${kept.join('\n')}\n`, 0o600);
}
