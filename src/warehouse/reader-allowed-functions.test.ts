import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extensionFile, LAKE_EXTENSIONS } from './lake-location.ts';
import list from './reader-allowed-functions.json' with { type: 'json' };

// How DuckDB's parser writes a call that no function of that name stands behind: unlist() is unnest() by another name.
const PARSER_ONLY = ['unlist'];

const SECTIONS = [
  { name: 'functions', section: list.functions, types: ['scalar', 'aggregate', 'macro'] },
  { name: 'table_functions', section: list.table_functions, types: ['table', 'table_macro'] },
] as const;

function matches(name: string, pattern: string): boolean {
  const escaped = pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`).test(name);
}

describe('the list of functions a reader may call', () => {
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  const namesOf = async (types: readonly string[]): Promise<Set<string>> => {
    const reader = await connection.runAndReadAll(
      `SELECT DISTINCT function_name FROM duckdb_functions() WHERE function_type IN (${types.map((type) => `'${type}'`).join(', ')})`,
    );
    return new Set(reader.getRows().map(([name]) => String(name)));
  };

  beforeAll(async () => {
    instance = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
    connection = await instance.connect();
    // Every function a reader's connection may have: the lake's extensions, with either kind of catalog.
    for (const name of LAKE_EXTENSIONS) await connection.run(`LOAD '${extensionFile(name)}'`);
  });
  afterAll(() => {
    connection.closeSync();
    instance.closeSync();
  });

  it('was made for the DuckDB Quarry ships', async () => {
    const reader = await connection.runAndReadAll('SELECT version()');
    expect(String(reader.getRows()[0]?.[0])).toBe(`v${list.duckdb_version}`);
  });

  it.each(SECTIONS)('names in $name only what DuckDB has, each allowed or refused, never both', async ({ section, types }) => {
    const known = await namesOf(types);
    const allowed = new Set<string>(section.allowed);
    const refused = (name: string): boolean => section.refused.some((group) => group.names.some((pattern) => matches(name, pattern)));
    expect({
      unknownAllowed: section.allowed.filter((name) => !known.has(name) && !PARSER_ONLY.includes(name)),
      allowedAndRefused: section.allowed.filter(refused),
      // A function a new DuckDB brings: read what it does, then list it as allowed or refused, with why.
      neither: [...known].filter((name) => !allowed.has(name) && !refused(name)).sort(),
    }).toEqual({ unknownAllowed: [], allowedAndRefused: [], neither: [] });
  });
});
