import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configProblemsFrom } from '../../test/support/config-problems.ts';
import { lakeChildEnv, lakeLocation, readerLocation } from '../warehouse/index.ts';
import { loadProjectConfig, projectPaths, type ProjectPaths } from './index.ts';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function projectWith(yamlText: string): ProjectPaths {
  const dir = mkdtempSync(path.join(tmpdir(), 'quarry-warehouse-config-'));
  directories.push(dir);
  mkdirSync(path.join(dir, '.quarry'));
  writeFileSync(path.join(dir, '.quarry', 'project.yml'), `name: Lake\n${yamlText}`);
  return projectPaths(dir);
}

describe('warehouse in project.yml', () => {
  it('keeps the embedded catalog in the project when left out', () => {
    const paths = projectWith('');
    expect(lakeLocation(paths, loadProjectConfig(paths), {})).toEqual({
      catalog: { kind: 'sqlite', file: paths.lakeCatalogFile }, dataPath: `${paths.lakeDataDir}${path.sep}`,
    });
  });

  it('reads a PostgreSQL catalog with its schema and shared folder, the password from the environment', () => {
    const paths = projectWith('warehouse:\n  catalog: postgres://quarry@db.example.com:6543/analytics\n  metadata_schema: team_lake\n  password_env: LAKE_PASSWORD\n  data_path: /mnt/lake\n');
    expect(lakeLocation(paths, loadProjectConfig(paths), { LAKE_PASSWORD: 's3cret' })).toEqual({
      catalog: { kind: 'postgres', host: 'db.example.com', port: 6543, user: 'quarry', database: 'analytics', metadataSchema: 'team_lake', password: 's3cret' },
      dataPath: `/mnt/lake${path.sep}`,
    });
  });

  it('defaults the port, the schema and the password variable', () => {
    const paths = projectWith('warehouse:\n  catalog: postgresql://quarry@db/analytics\n  data_path: /mnt/lake/\n');
    expect(lakeLocation(paths, loadProjectConfig(paths), { QUARRY_WAREHOUSE_PASSWORD: 'pw' })).toMatchObject({
      catalog: { port: 5432, metadataSchema: 'quarry_lake', password: 'pw' }, dataPath: '/mnt/lake/',
    });
  });

  it('gives readers the reader role and its password, the writer keeps the catalog\'s user', () => {
    const paths = projectWith('warehouse:\n  catalog: postgres://quarry@db/analytics\n  data_path: /mnt/lake\n  reader: { user: quarry_reader }\n');
    const env = { QUARRY_WAREHOUSE_PASSWORD: 'writer-pw', QUARRY_WAREHOUSE_READER_PASSWORD: 'reader-pw' };
    const lake = lakeLocation(paths, loadProjectConfig(paths), env);
    expect(lake.catalog).toMatchObject({ user: 'quarry', password: 'writer-pw', reader: { user: 'quarry_reader', password: 'reader-pw' } });
    expect(lakeChildEnv(lake)).toMatchObject({ QUARRY_LAKE_ATTACH: 'postgres:dbname=analytics host=db port=5432 user=quarry', PGPASSWORD: 'writer-pw' });
    expect(lakeChildEnv(readerLocation(lake))).toMatchObject({
      QUARRY_LAKE_ATTACH: 'postgres:dbname=analytics host=db port=5432 user=quarry_reader application_name=quarry-reader', PGPASSWORD: 'reader-pw',
    });
  });

  it('lets readers log in as the catalog\'s user when no reader role is named', () => {
    const paths = projectWith('warehouse:\n  catalog: postgres://quarry@db/analytics\n  data_path: /mnt/lake\n');
    const lake = lakeLocation(paths, loadProjectConfig(paths), { QUARRY_WAREHOUSE_PASSWORD: 'pw' });
    expect(readerLocation(lake).catalog).toMatchObject({ user: 'quarry', password: 'pw', applicationName: 'quarry-reader' });
  });

  it('keeps the data of either catalog in a bucket, reached with the keys object_store: names', () => {
    const objectStore = 'object_store:\n  endpoint: 127.0.0.1:8333\n  url_style: path\n  use_ssl: false\n  access_key_id_env: LAKE_KEY\n  secret_access_key_env: LAKE_SECRET\n';
    const env = { LAKE_KEY: 'AKIA0001', LAKE_SECRET: 'top-secret-value' };
    const paths = projectWith(`warehouse:\n  data_path: s3://team-lake/quarry\n${objectStore}`);
    const lake = lakeLocation(paths, loadProjectConfig(paths), env);
    expect(lake).toEqual({
      catalog: { kind: 'sqlite', file: paths.lakeCatalogFile }, dataPath: 's3://team-lake/quarry/',
      objectStore: { endpoint: '127.0.0.1:8333', region: undefined, urlStyle: 'path', useSsl: false, keyId: 'AKIA0001', secret: 'top-secret-value' },
    });
    const childEnv = lakeChildEnv(lake);
    expect(childEnv.QUARRY_LAKE_DATA).toBe('s3://team-lake/quarry/');
    expect(childEnv.QUARRY_LAKE_ATTACH).not.toContain('top-secret-value');
    expect(childEnv.QUARRY_LAKE_BUCKET_SECRET).toMatch(/^CREATE TEMPORARY SECRET quarry_lake_bucket \(TYPE s3, SCOPE 's3:\/\/team-lake', KEY_ID 'AKIA0001', SECRET 'top-secret-value'/);

    const shared = projectWith(`warehouse:\n  catalog: postgres://quarry@db/analytics\n  data_path: s3://team-lake\n${objectStore}`);
    expect(lakeLocation(shared, loadProjectConfig(shared), env)).toMatchObject({ catalog: { kind: 'postgres' }, dataPath: 's3://team-lake/' });
  });

  it('names the variable a bucket\'s key is missing from, never a value', () => {
    const paths = projectWith('warehouse:\n  data_path: s3://team-lake/quarry\nobject_store:\n  access_key_id_env: LAKE_KEY\n  secret_access_key_env: LAKE_SECRET\n');
    expect(configProblemsFrom(() => lakeLocation(paths, loadProjectConfig(paths), { LAKE_KEY: 'AKIA0001' })))
      .toEqual([expect.stringMatching(/^object_store: the environment variable LAKE_SECRET is not set/)]);
  });

  it.each([
    ['a bucket without object_store:', 'warehouse:\n  data_path: s3://team-lake/quarry\n', /object_store.*needs an object_store: section/],
    ['a bucket name S3 refuses', 'warehouse:\n  data_path: s3://Team_Lake\nobject_store: {}\n', /warehouse\.data_path.*s3:\/\/team-lake/],
    ['another kind of URL', 'warehouse:\n  data_path: https://example.com/lake\nobject_store: {}\n', /warehouse\.data_path/],
    ['one key without the other', 'warehouse:\n  data_path: s3://team-lake\nobject_store:\n  access_key_id_env: LAKE_KEY\n', /object_store\.secret_access_key_env.*set both/],
    ['an endpoint with a scheme', 'warehouse:\n  data_path: s3://team-lake\nobject_store:\n  endpoint: https://s3.example.com\n', /object_store\.endpoint.*without a scheme/],
    ['a key written inline', 'object_store:\n  secret_access_key: abc\n', /object_store.*secret_access_key/],
  ])('refuses %s with a located problem', (_case, yamlText, problem) => {
    const paths = projectWith(yamlText);
    expect(configProblemsFrom(() => loadProjectConfig(paths)).join('\n')).toMatch(problem);
  });

  it.each([
    ['a password in the address', 'catalog: postgres://quarry:pw@db/analytics\n  data_path: /mnt/lake', /warehouse\.catalog.*must not contain a password: put it in \.env/],
    ['no user', 'catalog: postgres://db/analytics\n  data_path: /mnt/lake', /warehouse\.catalog.*expected a user/],
    ['no database', 'catalog: postgres://quarry@db\n  data_path: /mnt/lake', /warehouse\.catalog.*expected one database name/],
    ['another kind of address', 'catalog: mysql://quarry@db/analytics\n  data_path: /mnt/lake', /warehouse\.catalog/],
    ['no shared folder', 'catalog: postgres://quarry@db/analytics', /warehouse\.data_path.*needs data_path/],
    ['a relative shared folder', 'catalog: postgres://quarry@db/analytics\n  data_path: lake', /warehouse\.data_path.*absolute/],
    ['a shared folder for the embedded catalog', 'data_path: /mnt/lake', /warehouse\.data_path.*embedded catalog/],
    ['a reader role for the embedded catalog', 'reader: { user: quarry_reader }', /warehouse\.reader.*PostgreSQL catalog/],
    ['a reader role without a user', 'catalog: postgres://quarry@db/analytics\n  data_path: /mnt/lake\n  reader: { password_env: READER_PW }', /warehouse\.reader\.user/],
    ['a reader role name that is no role name', 'catalog: postgres://quarry@db/analytics\n  data_path: /mnt/lake\n  reader: { user: "x y" }', /warehouse\.reader\.user.*role name/],
    ['a reader password written inline', 'catalog: postgres://quarry@db/analytics\n  data_path: /mnt/lake\n  reader: { user: quarry_reader, password: pw }', /warehouse\.reader.*password/],
    ['a schema that is no SQL name', 'catalog: postgres://quarry@db/analytics\n  data_path: /mnt/lake\n  metadata_schema: "x; drop"', /warehouse\.metadata_schema/],
  ])('refuses %s with a located problem', (_case, section, problem) => {
    const paths = projectWith(`warehouse:\n  ${section}\n`);
    expect(configProblemsFrom(() => loadProjectConfig(paths)).join('\n')).toMatch(problem);
  });
});
