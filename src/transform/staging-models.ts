import path from 'node:path';
import { writeGeneratedFile, type GeneratedFileOutcome } from './generated-file.ts';

export interface RawTable {
  readonly schema: string;
  readonly name: string;
  readonly columns: readonly string[];
}

/** `stg_<source>__<table>`: the staging model Quarry generates for one raw table (a model name is letters, digits and _). */
export function stagingModelName(source: string, table: string): string {
  return `stg_${source}__${table}`.toLowerCase().replaceAll(/[^a-z0-9_]/g, '_');
}

function quoteColumn(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function modelSql(source: string, table: RawTable): string {
  const columns = table.columns.map((column) => `    ${quoteColumn(column)}`).join(',\n');
  return `-- Staging view over the raw table ${table.schema}.${table.name}. Quarry rewrites this file when the
-- raw table's columns change, unless you edit it: from then on it is yours.
select
${columns}
from {{ source('${source}', ${JSON.stringify(table.name)}) }}
`;
}

function sourcesYaml(source: string, tables: readonly RawTable[]): string {
  const schema = tables[0]?.schema ?? `raw_${source}`;
  const models = tables.map((table) => [
    `  - name: ${stagingModelName(source, table.name)}`,
    `    description: "Staging view over ${table.schema}.${table.name}"`,
    '    columns:',
    ...table.columns.map((column) => `      - name: ${JSON.stringify(column)}`),
  ].join('\n'));
  return [
    'version: 2',
    'sources:',
    `  - name: ${source}`,
    `    schema: ${schema}`,
    `    description: "Raw tables Quarry loads from the source ${source}"`,
    '    tables:',
    ...tables.map((table) => `      - name: ${JSON.stringify(table.name)}`),
    'models:',
    ...models,
    '',
  ].join('\n');
}

/** Writes models/staging/<source>/: a dbt source for its raw tables and one staging model per table. */
export function writeStagingModels(transformDir: string, source: string, tables: readonly RawTable[]): Record<string, GeneratedFileOutcome> {
  const directory = path.join(transformDir, 'models', 'staging', source);
  const outcomes: Record<string, GeneratedFileOutcome> = {};
  if (tables.length === 0) return outcomes;
  outcomes[`_${source}__sources.yml`] = writeGeneratedFile(path.join(directory, `_${source}__sources.yml`), sourcesYaml(source, tables), '#');
  for (const table of tables) {
    const name = stagingModelName(source, table.name);
    outcomes[name] = writeGeneratedFile(path.join(directory, `${name}.sql`), modelSql(source, table), '--');
  }
  return outcomes;
}
