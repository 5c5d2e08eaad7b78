import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LAKE_FILE_COPY_OPTIONS, lakeMetadataSchema, LakeWriter, openScratchConnection, type DuckDBConnection, type LakeLocation,
} from '../warehouse/index.ts';
import { LOCAL_POSTGRES, onPostgres } from '../../test/support/local-postgres.ts';
import { adoptStagedParquet } from './adopt-staged-parquet.ts';

const LOADED_AT = '2026-11-25 10:00:00';

// Every type the database connectors declare, and then some: each value as DuckDB writes it, NULLs included.
const EVERY_TYPE = `SELECT * FROM (VALUES
  (true, -3::TINYINT, -300::SMALLINT, 70000, 9007199254740993::BIGINT, 200::UTINYINT, 60000::USMALLINT, 4000000000::UINTEGER,
   18446744073709551615::UBIGINT, 1.5::FLOAT, 2.25::DOUBLE, 12.34::DECIMAL(4,2), 123456789012345678901234567890.12345678::DECIMAL(38,8),
   DATE '2026-02-28', TIME '13:45:10', TIMESTAMP '2026-01-01 00:00:01.123456', TIMESTAMPTZ '2026-01-01 00:00:00+00', INTERVAL 3 DAY,
   'it''s', '\\x00\\xff'::BLOB, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::UUID, '{"a": [1, 2]}'::JSON, ['x', NULL]),
  (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
) t(flag, tiny, small, whole, big, utiny, usmall, uwhole, ubig, ratio, wide, money, exact, day, at_time, moment, moment_tz, span, label, bytes, id, doc, tags)`;

const postgresSchema = `quarry_adopt_test_${String(process.pid)}`;

const catalogs = {
  sqlite: (root: string): LakeLocation['catalog'] => ({ kind: 'sqlite', file: path.join(root, 'catalog.sqlite') }),
  postgres: (): LakeLocation['catalog'] => ({ kind: 'postgres', ...LOCAL_POSTGRES, metadataSchema: postgresSchema, password: undefined }),
};

describe.each(Object.entries(catalogs))('adopting a staged Parquet file as a table\'s data file (%s catalog)', (kind, catalogIn) => {
  let root: string;
  let lake: LakeLocation;
  let writer: LakeWriter;
  let metadata: string;
  let scratch: Awaited<ReturnType<typeof openScratchConnection>>;
  let files = 0;

  const staged = async (select: string, options = LAKE_FILE_COPY_OPTIONS): Promise<string> => {
    files += 1;
    const file = path.join(root, 'staging', `export-${String(files)}.parquet`);
    await scratch.connection.run(`COPY (${select}) TO '${file}' (${options})`);
    return file;
  };
  const write = <T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> =>
    writer.write(({ transaction }) => transaction(work), { signal: AbortSignal.timeout(60_000) });
  const adopt = (name: string, file: string): Promise<boolean> => write(async (connection) => {
    await connection.run('CREATE SCHEMA IF NOT EXISTS raw_x');
    return adoptStagedParquet(connection, { schema: 'raw_x', name, file: { path: file, format: 'parquet' }, loadedAt: LOADED_AT });
  });
  const rows = (sql: string): Promise<unknown[][]> => write(async (connection) => (await connection.runAndReadAll(sql)).getRows());

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'quarry-adopt-'));
    lake = { catalog: catalogIn(root), dataPath: `${path.join(root, 'data')}/` };
    writer = new LakeWriter(lake, path.join(root, 'writer.lock'));
    metadata = lakeMetadataSchema(lake);
    scratch = await openScratchConnection([]);
    mkdirSync(path.join(root, 'staging'));
  });
  afterAll(async () => {
    await scratch.close();
    rmSync(root, { recursive: true, force: true });
    if (kind === 'postgres') await onPostgres((client) => client.query(`DROP SCHEMA IF EXISTS ${postgresSchema} CASCADE`));
  });

  it('records the file in the table\'s own folder, relative to it, with every type reading back as a rewrite would', async () => {
    const file = await staged(EVERY_TYPE);
    expect(await adopt('kinds', file)).toBe(true);
    expect(existsSync(file)).toBe(false);
    await write(async (connection) => {
      await connection.run(`CREATE TABLE raw_x.rewritten AS SELECT *, TIMESTAMP '${LOADED_AT}' AS _quarry_loaded_at FROM (${EVERY_TYPE})`);
    });
    const difference = await rows('(FROM raw_x.kinds EXCEPT ALL FROM raw_x.rewritten) UNION ALL (FROM raw_x.rewritten EXCEPT ALL FROM raw_x.kinds)');
    expect(difference).toEqual([]);
    expect(await rows("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'kinds' ORDER BY ordinal_position"))
      .toEqual(await rows("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'rewritten' ORDER BY ordinal_position"));
    expect(await rows(`SELECT f.path, f.path_is_relative::BOOLEAN FROM ${metadata}.ducklake_data_file f
      JOIN ${metadata}.ducklake_table t USING (table_id) WHERE t.table_name = 'kinds'`))
      .toEqual([[expect.stringMatching(/^quarry-[0-9a-f-]{36}\.parquet$/), true]]);
  });

  it('leaves the load time to rows inserted later, and takes later schema changes and file merges as a written file does', async () => {
    expect(await adopt('later', await staged('SELECT 1 AS id'))).toBe(true);
    await write((connection) => connection.run("INSERT INTO raw_x.later VALUES (2, TIMESTAMP '2026-11-26 00:00:00'), (3, NULL)"));
    expect(await rows('SELECT id, _quarry_loaded_at::VARCHAR FROM raw_x.later ORDER BY id')).toEqual([
      [1, LOADED_AT], [2, '2026-11-26 00:00:00'], [3, null],
    ]);
    await write(async (connection) => {
      await connection.run('ALTER TABLE raw_x.later ADD COLUMN note VARCHAR');
      await connection.run('ALTER TABLE raw_x.later ALTER COLUMN id TYPE BIGINT');
      await connection.run("INSERT INTO raw_x.later VALUES (4, NULL, 'four')");
    });
    const merged = await rows("CALL ducklake_merge_adjacent_files('warehouse')");
    expect(merged).toEqual([['raw_x', 'later', 2n, 1n]]);
    expect(await rows('SELECT id, _quarry_loaded_at::VARCHAR, note FROM raw_x.later ORDER BY id')).toEqual([
      [1n, LOADED_AT, null], [2n, '2026-11-26 00:00:00', null], [3n, null, null], [4n, null, 'four'],
    ]);
  });

  it('declines, changing nothing, an empty file, a file in another codec, a type DuckLake cannot map, or a name whose folder DuckLake makes up', async () => {
    const cases: [string, string][] = [
      ['snappy', await staged('SELECT 1 AS id', 'FORMAT parquet, COMPRESSION snappy')],
      ['nested', await staged("SELECT {'a': 1} AS id")],
      ['empty', await staged('SELECT 1 AS id WHERE false')],
      ['odd name', await staged('SELECT 1 AS id')],
    ];
    for (const [name, file] of cases) {
      expect(await adopt(name, file), name).toBe(false);
      expect(existsSync(file), name).toBe(true);
    }
    expect(await rows("SELECT table_name FROM information_schema.tables WHERE table_schema = 'raw_x' AND table_name IN ('snappy', 'nested', 'empty', 'odd name')")).toEqual([]);
  });
});
