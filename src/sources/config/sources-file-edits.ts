import path from 'node:path';
import { isMap, isSeq, parseDocument } from 'yaml';
import { readProjectFile, writeFileAtomically, type ProjectPaths } from '../../config/index.ts';
import { ConfigError } from '../../errors.ts';
import { parseSources, type SourceConfig } from './sources-config.ts';

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
