import path from 'node:path';
import { writeGeneratedFile, type GeneratedFileOutcome } from './generated-file.ts';
import { assertOnlyQuarryJinja, commentText, jinjaIdentifier, jinjaString, yamlJinjaString } from './jinja-text.ts';

export interface RawTable {
  readonly schema: string;
  readonly name: string;
  readonly columns: readonly string[];
}

/** `stg_<source>__<table>`: the staging model Quarry generates for one raw table (a model name is letters, digits and _). */
export function stagingModelName(source: string, table: string): string {
  return `stg_${source}__${table}`.toLowerCase().replaceAll(/[^a-z0-9_]/g, '_');
}

function modelSql(source: string, table: RawTable): string {
  const columns = table.columns.map((column) => `    ${jinjaIdentifier(column)}`).join(',\n');
  return `-- Staging view over the raw table ${commentText(`${table.schema}.${table.name}`)}. Quarry rewrites this file when the
-- raw table's columns change, unless you edit it: from then on it is yours.
select
${columns}
from {{ source(${jinjaString(source)}, ${jinjaString(table.name)}) }}
`;
}

function sourcesYaml(source: string, tables: readonly RawTable[]): string {
  const schema = tables[0]?.schema ?? `raw_${source}`;
  const models = tables.map((table) => [
    `  - name: ${stagingModelName(source, table.name)}`,
    `    description: ${yamlJinjaString(`Staging view over ${table.schema}.${table.name}`)}`,
    '    columns:',
    ...table.columns.map((column) => `      - name: ${yamlJinjaString(column)}`),
  ].join('\n'));
  return [
    'version: 2',
    'sources:',
    `  - name: ${source}`,
    `    schema: ${schema}`,
    `    description: "Raw tables Quarry loads from the source ${source}"`,
    '    tables:',
    ...tables.map((table) => `      - name: ${yamlJinjaString(table.name)}`),
    'models:',
    ...models,
    '',
  ].join('\n');
}

/**
 * Writes models/staging/<source>/: a dbt source for its raw tables and one staging model per table.
 * Every name is escaped for Jinja as well as for SQL or YAML, and each file is checked before it lands,
 * so no name can run as dbt code or leave the project unparsable. Throws UnsafeGeneratedFileError
 * (writing nothing) when a check fails.
 */
export function writeStagingModels(transformDir: string, source: string, tables: readonly RawTable[]): Record<string, GeneratedFileOutcome> {
  const directory = path.join(transformDir, 'models', 'staging', source);
  const outcomes: Record<string, GeneratedFileOutcome> = {};
  if (tables.length === 0) return outcomes;
  const files = [
    { key: `_${source}__sources.yml`, file: `_${source}__sources.yml`, body: sourcesYaml(source, tables), commentPrefix: '#' as const },
    ...tables.map((table) => {
      const name = stagingModelName(source, table.name);
      return { key: name, file: `${name}.sql`, body: modelSql(source, table), commentPrefix: '--' as const };
    }),
  ];
  for (const { file, body } of files) assertOnlyQuarryJinja(file, body);
  for (const { key, file, body, commentPrefix } of files) outcomes[key] = writeGeneratedFile(path.join(directory, file), body, commentPrefix);
  return outcomes;
}
