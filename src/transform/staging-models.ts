import path from 'node:path';
import { parse } from 'yaml';
import type { StagingColumnNames } from '../sources/config/index.ts';
import { readGeneratedFile, writeGeneratedFile, type GeneratedFileOutcome } from './generated-file.ts';
import { assertOnlyQuarryJinja, commentText, jinjaIdentifier, jinjaString, yamlJinjaString } from './jinja-text.ts';
import { snakeCaseColumns } from './snake-case-columns.ts';

export interface RawTable {
  readonly schema: string;
  readonly name: string;
  /** As the raw table names them, as are `notNull` and `uniqueKey`. */
  readonly columns: readonly string[];
  /** Columns that get a generated `not_null` test (no nulls seen in them). */
  readonly notNull?: readonly string[];
  /** The column that gets a generated `unique` test (the connector's one-column merge key). */
  readonly uniqueKey?: string | null;
}

/** The name the staging model gives each raw column, in the raw table's order. */
export function stagingColumnNames(columns: readonly string[], naming: StagingColumnNames): string[] {
  return naming === 'snake_case' ? snakeCaseColumns(columns) : [...columns];
}

/** `stg_<source>__<table>`: the staging model Quarry generates for one raw table (a model name is letters, digits and _). */
export function stagingModelName(source: string, table: string): string {
  return `stg_${source}__${table}`.toLowerCase().replaceAll(/[^a-z0-9_]/g, '_');
}

function modelSql(source: string, table: RawTable, names: readonly string[]): string {
  // A snake_case name is letters, digits and underscores (see snakeCaseColumns): it needs no quoting or escaping.
  const columns = table.columns.map((column, index) => {
    const name = names[index] ?? column;
    return `    ${jinjaIdentifier(column)}${name === column ? '' : ` as ${name}`}`;
  }).join(',\n');
  return `-- Staging view over the raw table ${commentText(`${table.schema}.${table.name}`)}. Quarry rewrites this file when the
-- raw table's columns change, unless you edit it: from then on it is yours.
select
${columns}
from {{ source(${jinjaString(source)}, ${jinjaString(table.name)}) }}
`;
}

// dbt's generic tests put the column name into their SQL as it is: only a plain name gets a generated test
// (every snake_case name is one: DuckDB reads it unquoted).
const PLAIN_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function sourcesYaml(source: string, tables: readonly RawTable[], naming: StagingColumnNames): string {
  const schema = tables[0]?.schema ?? `raw_${source}`;
  const models = tables.map((table) => {
    const names = stagingColumnNames(table.columns, naming);
    return [
      `  - name: ${stagingModelName(source, table.name)}`,
      `    description: ${yamlJinjaString(`Staging view over ${table.schema}.${table.name}`)}`,
      '    columns:',
      ...table.columns.flatMap((column, index) => {
        const name = names[index] ?? column;
        const testable = naming === 'snake_case' || PLAIN_IDENTIFIER.test(name);
        const tests = testable ? [...(table.notNull?.includes(column) ? ['not_null'] : []), ...(table.uniqueKey === column ? ['unique'] : [])] : [];
        return [`      - name: ${yamlJinjaString(name)}`, ...(tests.length > 0 ? [`        data_tests: [${tests.join(', ')}]`] : [])];
      }),
    ].join('\n');
  });
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
 * The columns with a `not_null` test in the source's generated YAML as Quarry last wrote it, per staging model:
 * a test once generated stays, so a column that starts holding nulls fails it instead of losing it.
 */
export function generatedNotNullColumns(transformDir: string, source: string): Map<string, Set<string>> {
  const columns = new Map<string, Set<string>>();
  const body = readGeneratedFile(path.join(transformDir, 'models', 'staging', source, `_${source}__sources.yml`));
  if (body === undefined) return columns;
  const yaml = parse(body) as { models?: { name?: unknown; columns?: { name?: unknown; data_tests?: unknown }[] }[] } | null;
  for (const model of yaml?.models ?? []) {
    const tested = (model.columns ?? []).filter((column) => Array.isArray(column.data_tests) && column.data_tests.includes('not_null'))
      .map((column) => String(column.name));
    columns.set(String(model.name), new Set(tested));
  }
  return columns;
}

/**
 * Writes models/staging/<source>/: a dbt source for its raw tables (with the generated tests of their staging
 * models) and one staging model per table, its columns named as `naming` says.
 * Every name is escaped for Jinja as well as for SQL or YAML, and each file is checked before it lands,
 * so no name can run as dbt code or leave the project unparsable. Throws UnsafeGeneratedFileError
 * (writing nothing) when a check fails.
 */
export function writeStagingModels(
  transformDir: string, source: string, tables: readonly RawTable[], naming: StagingColumnNames,
): Record<string, GeneratedFileOutcome> {
  const directory = path.join(transformDir, 'models', 'staging', source);
  const outcomes: Record<string, GeneratedFileOutcome> = {};
  if (tables.length === 0) return outcomes;
  const files = [
    { key: `_${source}__sources.yml`, file: `_${source}__sources.yml`, body: sourcesYaml(source, tables, naming), commentPrefix: '#' as const },
    ...tables.map((table) => {
      const name = stagingModelName(source, table.name);
      const body = modelSql(source, table, stagingColumnNames(table.columns, naming));
      return { key: name, file: `${name}.sql`, body, commentPrefix: '--' as const };
    }),
  ];
  for (const { file, body } of files) assertOnlyQuarryJinja(file, body);
  for (const { key, file, body, commentPrefix } of files) outcomes[key] = writeGeneratedFile(path.join(directory, file), body, commentPrefix);
  return outcomes;
}
