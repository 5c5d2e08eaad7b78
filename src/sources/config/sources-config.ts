import { stringify } from 'yaml';
import { describeKind, formatProblem, isMapping, readYaml } from '../../config/index.ts';
import { ConfigError } from '../../errors.ts';
import { parseSourceEntry, type SourceConfig } from './source-entry.ts';
import { SOURCE_TYPES } from './source-types.ts';

export { stagingColumnNamesOf, type SourceConfig, type StagingColumnNames } from './source-entry.ts';

const HEADER = `# Sources Quarry loads into its warehouse, one list item each:
#   name           required, unique; lowercase letters, digits and underscores, starting with a letter
#   type           required; a source type key such as local_files, rest_api or native_pipeline
#   enabled        whether syncs include the source (default true)
#   description, tags, lookback_days   optional
#   freshness      optional {warn_after_hours, error_after_hours}: stale after that long without a successful sync
#   staging_column_names   snake_case (a staging model shows "Invoice ID" as invoice_id) or original (the default)
# plus one section with the type's fields, named after the type (local_files:, rest_api:, ...),
# or generic_config: for types without fields of their own. Credentials never go in this file:
# *_env fields name an environment variable, whose value belongs in .env.
#
#   - name: orders
#     type: local_files
#     local_files:
#       directory: data/orders
#       file_pattern: "*.csv"
`;

/** Reads sources.yml text: every source valid, names unique, defaults applied, all frozen; else one ConfigError listing each problem. */
export function parseSources(yamlText: string, label = 'sources.yml'): readonly SourceConfig[] {
  const { entries, problems } = readEntries(readYaml(yamlText, label), label);
  const sources: SourceConfig[] = [];
  const firstIndexByName = new Map<string, number>();
  entries.forEach((entry, index) => {
    const at = ['sources', index];
    const result = parseSourceEntry(entry, at, label);
    if (result.success) sources.push(result.data);
    else problems.push(...result.problems);

    const name = isMapping(entry) ? entry.name : undefined;
    if (typeof name !== 'string') return;
    const firstIndex = firstIndexByName.get(name);
    if (firstIndex === undefined) firstIndexByName.set(name, index);
    else problems.push(formatProblem(label, [...at, 'name'], `duplicate source name ${JSON.stringify(name)} (also sources[${firstIndex}])`));
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(sources);
}

/** sources.yml text that parseSources reads back as `sources`. */
export function serializeSources(sources: readonly SourceConfig[]): string {
  return `${HEADER}${stringify({ sources: sources.map(orderFields) }, { lineWidth: 0 })}`;
}

/** The sources.yml of a new project: no sources, and a header explaining how to add one. */
export function defaultSourcesYaml(): string {
  return `${HEADER}sources: []\n`;
}

function readEntries(document: unknown, label: string): { entries: readonly unknown[]; problems: string[] } {
  if (document === null || document === undefined) return { entries: [], problems: [] };
  if (!isMapping(document)) {
    throw new ConfigError([formatProblem(label, [], `expected a mapping with a sources: list, got ${describeKind(document)}`)]);
  }
  const problems: string[] = [];
  const unknown = Object.keys(document).filter((key) => key !== 'sources');
  if (unknown.length > 0) problems.push(formatProblem(label, [], `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`));
  const { sources } = document;
  if (sources === null || sources === undefined) return { entries: [], problems };
  if (!Array.isArray(sources)) {
    problems.push(formatProblem(label, ['sources'], `expected list, got ${describeKind(sources)}`));
    return { entries: [], problems };
  }
  return { entries: sources, problems };
}

/** The order a person would write: common fields first, the section last. */
function orderFields(source: SourceConfig): Record<string, unknown> {
  const section = SOURCE_TYPES[source.type].section;
  const fields: Readonly<Record<string, unknown>> = source;
  return {
    name: source.name,
    type: source.type,
    enabled: source.enabled,
    ...(source.description === undefined ? {} : { description: source.description }),
    tags: source.tags,
    ...(source.lookback_days === undefined ? {} : { lookback_days: source.lookback_days }),
    ...(source.freshness === undefined ? {} : { freshness: source.freshness }),
    ...(source.staging_column_names === undefined ? {} : { staging_column_names: source.staging_column_names }),
    [section]: fields[section],
  };
}
