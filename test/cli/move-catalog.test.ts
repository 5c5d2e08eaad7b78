import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { onPostgres } from '../support/local-postgres.ts';
import { runQuarry } from '../support/quarry-process.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';
import { fingerprintWarehouse as fingerprint } from '../support/warehouse-fingerprint.ts';

const GAPMINDER = path.resolve(import.meta.dirname, '..', 'fixtures', 'real-world', 'tidyverse', 'readr', 'inst', 'extdata');
const SOURCES_YAML = 'sources:\n  - name: gapminder\n    type: local_files\n    local_files: { directory: data/gapminder, file_pattern: "mini-gapminder-*.csv" }\n';
const CATALOG = 'postgres://postgres@127.0.0.1:5432/test';
const schema = `quarry_lake_moved_${String(process.pid)}_${Date.now().toString(36)}`;

// A single-host project's lake, its catalog moved into PostgreSQL for a deployment: the same lake, history and all.
describe('quarry warehouse move-catalog', () => {
  let project: TestQuarry;
  let dir: string;
  let before: Record<string, string>;
  let snapshotsBefore: unknown[];

  const warehouseSection = (): Record<string, unknown> | undefined => (parse(readFileSync(path.join(dir, '.quarry', 'project.yml'), 'utf8')) as { warehouse?: Record<string, unknown> }).warehouse;
  const lakeTablesInSchema = (name: string): Promise<number> => onPostgres(async (client) =>
    (await client.query<{ n: number }>("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1 AND table_name LIKE 'ducklake%'", [name])).rows[0]!.n);

  beforeAll(async () => {
    project = await startQuarry({
      sourcesYaml: SOURCES_YAML,
      prepare: (projectDir) => { cpSync(GAPMINDER, path.join(projectDir, 'data', 'gapminder'), { recursive: true }); },
    });
    dir = project.dir;
    expect(await syncAndWait(project, 'gapminder')).toMatchObject({ type: 'sync_completed', rows: 26 });
    writeFileSync(path.join(dir, 'data', 'gapminder', 'mini-gapminder-africa.csv'), readFileSync(path.join(GAPMINDER, 'mini-gapminder-europe.csv')));
    expect(await syncAndWait(project, 'gapminder')).toMatchObject({ type: 'sync_completed' });
    before = await fingerprint(project);
    snapshotsBefore = (await project.request('GET', '/api/warehouse/snapshots?limit=50', { as: 'viewer' })).json;
  }, 120_000);

  afterAll(async () => {
    await project.close();
    await rm(dir, { recursive: true, force: true });
    await onPostgres((client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; DROP SCHEMA IF EXISTS ${schema}_moving CASCADE`));
  });

  it('refuses while Quarry runs, and an unreachable catalog, changing nothing', async () => {
    const running = await runQuarry(['warehouse', 'move-catalog', '--to', CATALOG, '--schema', schema, '--project', dir]);
    expect(running.status).toBe(1);
    expect(running.stderr).toMatch(/Quarry is running for this project.*stop it first/);
    await project.stop();
    const unreachable = await runQuarry(['warehouse', 'move-catalog', '--to', 'postgres://postgres@127.0.0.1:1/test', '--schema', schema, '--project', dir]);
    expect(unreachable.status).toBe(1);
    expect(unreachable.stderr).toMatch(/^quarry: The warehouse catalog postgres:\/\/postgres@127\.0\.0\.1:1\/test cannot be used: .*ECONNREFUSED/m);
    const withPassword = await runQuarry(['warehouse', 'move-catalog', '--to', 'postgres://postgres:hunter2@127.0.0.1:5432/test', '--project', dir]);
    expect(withPassword.status).toBe(1);
    expect(withPassword.stderr).toContain('must not contain a password');
    expect(warehouseSection()?.catalog).toBeUndefined();
    expect(await lakeTablesInSchema(schema)).toBe(0);

    // Set by hand over the embedded lake's data, the catalog names an empty schema: a new lake there would take the
    // lake's files for its leftovers, which maintenance deletes. The start refuses, and doctor says what to run.
    const file = path.join(dir, '.quarry', 'project.yml');
    const original = readFileSync(file, 'utf8');
    const dataPath = project.ctx.lake.dataPath;
    writeFileSync(file, stringify({ ...parse(original), warehouse: { catalog: CATALOG, metadata_schema: schema, data_path: dataPath } }));
    const refusal = `warehouse.data_path: ${dataPath} holds files, and the catalog ${CATALOG} has no lake in the schema ${schema}: `;
    const starting = startQuarry({ projectDir: dir });
    const error = await starting.then(async (started) => { await started.close(); return undefined; }, (failure: unknown) => failure);
    expect((error as Error | undefined)?.message).toContain(refusal);
    const doctor = await runQuarry(['doctor', '--project', dir]);
    expect(doctor.stdout).toContain(`✗ Warehouse: ${refusal}`);
    expect(doctor.stdout).toContain('quarry warehouse move-catalog');
    writeFileSync(file, original);
    expect(await lakeTablesInSchema(schema)).toBe(0);
  }, 60_000);

  it('copies the catalog with its snapshots, and the service reads and writes the same lake through PostgreSQL', async () => {
    // What a copy cut short left (its own schema beside the lake's) is dropped first.
    await onPostgres((client) => client.query(`CREATE SCHEMA ${schema}_moving; CREATE TABLE ${schema}_moving.ducklake_metadata (x int)`));
    const moved = await runQuarry(['warehouse', 'move-catalog', '--to', CATALOG, '--schema', schema, '--project', dir]);
    expect(moved.status, moved.stderr).toBe(0);
    expect(moved.stdout).toMatch(new RegExp(`Copied the lake's catalog into ${CATALOG} \\(schema ${schema}\\): \\d+ row\\(s\\); 1 table\\(s\\) read back the same\\.`));
    expect(warehouseSection()).toMatchObject({ catalog: CATALOG, metadata_schema: schema, data_path: project.ctx.lake.dataPath });
    expect(await lakeTablesInSchema(`${schema}_moving`)).toBe(0);

    project = await project.restart();
    expect(project.ctx.lake.catalog).toMatchObject({ kind: 'postgres', metadataSchema: schema });
    expect(await fingerprint(project)).toEqual(before);
    expect((await project.request('GET', '/api/warehouse/snapshots?limit=50', { as: 'viewer' })).json).toEqual(snapshotsBefore);

    // The lake goes on from where it was: a new file is a new snapshot after the copied ones.
    writeFileSync(path.join(dir, 'data', 'gapminder', 'mini-gapminder-oceania.csv'), readFileSync(path.join(GAPMINDER, 'mini-gapminder-asia.csv')));
    expect(await syncAndWait(project, 'gapminder')).toMatchObject({ type: 'sync_completed' });
    const [afghanistan] = await project.query('SELECT count(*) AS n FROM raw_gapminder.gapminder WHERE country = \'Afghanistan\'');
    expect(afghanistan?.n).toBe(2);
    const snapshots = (await project.request('GET', '/api/warehouse/snapshots?limit=50', { as: 'viewer' })).json as { id: number }[];
    expect(snapshots[0]!.id).toBeGreaterThan((snapshotsBefore as { id: number }[])[0]!.id);
  }, 120_000);

  it('refuses a project whose catalog is in PostgreSQL already, and a schema that holds a lake, changing nothing', async () => {
    await project.stop();
    const again = await runQuarry(['warehouse', 'move-catalog', '--to', CATALOG, '--schema', `${schema}_2`, '--project', dir]);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('names a PostgreSQL catalog already');
    expect(await lakeTablesInSchema(`${schema}_2`)).toBe(0);

    // The embedded catalog is still there: pointed back at it, the project is refused the schema its copy is in.
    const file = path.join(dir, '.quarry', 'project.yml');
    const moved = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, stringify({ ...moved, warehouse: undefined }));
    const tables = await lakeTablesInSchema(schema);
    const taken = await runQuarry(['warehouse', 'move-catalog', '--to', CATALOG, '--schema', schema, '--project', dir]);
    expect(taken.status).toBe(1);
    expect(taken.stderr).toContain(`The schema ${schema} holds a lake already`);
    expect(await lakeTablesInSchema(schema)).toBe(tables);
    expect(await lakeTablesInSchema(`${schema}_moving`)).toBe(0);
    expect(warehouseSection()).toBeUndefined();
  }, 60_000);
});
