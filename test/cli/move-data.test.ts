import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { parse, stringify } from 'yaml';
import { startObjectStore, type ObjectStore } from '../support/object-store.ts';
import { runQuarry } from '../support/quarry-process.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';
import { fingerprintWarehouse as fingerprint } from '../support/warehouse-fingerprint.ts';

const GAPMINDER = path.resolve(import.meta.dirname, '..', 'fixtures', 'real-world', 'tidyverse', 'readr', 'inst', 'extdata');
const SOURCES_YAML = 'sources:\n  - name: gapminder\n    type: local_files\n    local_files: { directory: data/gapminder, file_pattern: "mini-gapminder-*.csv" }\n';

describe('quarry warehouse move-data', () => {
  let store: ObjectStore;
  let project: TestQuarry;
  let dir: string;
  let before: Record<string, string>;

  const projectFile = (): string => path.join(dir, '.quarry', 'project.yml');
  const setObjectStore = (section: Record<string, unknown> | undefined): void => {
    const config = parse(readFileSync(projectFile(), 'utf8')) as Record<string, unknown>;
    writeFileSync(projectFile(), stringify({ ...config, object_store: section }));
  };

  beforeAll(async () => {
    store = await startObjectStore();
    project = await startQuarry({
      sourcesYaml: SOURCES_YAML,
      prepare: (projectDir) => { cpSync(GAPMINDER, path.join(projectDir, 'data', 'gapminder'), { recursive: true }); },
    });
    dir = project.dir;
    expect(await syncAndWait(project, 'gapminder')).toMatchObject({ type: 'sync_completed', rows: 26 });
    before = await fingerprint(project);
    expect(Object.keys(before)).toEqual(['raw_gapminder.gapminder']);
  }, 120_000);

  afterAll(async () => {
    await project.close();
    await rm(dir, { recursive: true, force: true });
    await store.stop();
  });

  it('refuses while Quarry runs, and without object_store:, changing nothing', async () => {
    const running = await runQuarry(['warehouse', 'move-data', 's3://team-lake/quarry', '--project', dir]);
    expect(running.status).toBe(1);
    expect(running.stderr).toMatch(/Quarry is running for this project.*stop it first/);
    await project.stop();
    const unconfigured = await runQuarry(['warehouse', 'move-data', 's3://team-lake/quarry', '--project', dir]);
    expect(unconfigured.status).toBe(1);
    expect(unconfigured.stderr).toMatch(/Add an object_store: section to project\.yml first/);
    expect(parse(readFileSync(projectFile(), 'utf8')).warehouse?.data_path).toBeUndefined();
  }, 60_000);

  it('refuses a bucket that is missing, or whose keys are refused, naming the bucket and not the keys', async () => {
    setObjectStore({ endpoint: store.endpoint, url_style: 'path', use_ssl: false, access_key_id_env: 'LAKE_KEY_ID', secret_access_key_env: 'LAKE_SECRET' });
    const env = readFileSync(path.join(dir, '.env'), 'utf8');
    writeFileSync(path.join(dir, '.env'), `${env}LAKE_KEY_ID=${store.accessKeyId}\nLAKE_SECRET=${store.secretAccessKey}\n`);
    const missing = await runQuarry(['warehouse', 'move-data', 's3://team-lake/quarry', '--project', dir]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/the bucket team-lake does not exist there; create it first/);

    await store.createBucket('team-lake');
    writeFileSync(path.join(dir, '.env'), `${env}LAKE_KEY_ID=${store.accessKeyId}\nLAKE_SECRET=not-the-secret-at-all\n`);
    const forbidden = await runQuarry(['warehouse', 'move-data', 's3://team-lake/quarry', '--project', dir]);
    expect(forbidden.status).toBe(1);
    expect(forbidden.stderr).toMatch(/Could not list s3:\/\/team-lake\/quarry\/: \w+ \(HTTP 403\)/);
    expect(forbidden.stderr).not.toContain('not-the-secret-at-all');
    expect(parse(readFileSync(projectFile(), 'utf8')).warehouse?.data_path).toBeUndefined();
    writeFileSync(path.join(dir, '.env'), `${env}LAKE_KEY_ID=${store.accessKeyId}\nLAKE_SECRET=${store.secretAccessKey}\n`);
  }, 60_000);

  it('refuses a prefix holding objects that are not the lake\'s, which its maintenance would delete', async () => {
    const s3 = new S3Client({
      region: store.region, endpoint: `http://${store.endpoint}`, forcePathStyle: true,
      credentials: { accessKeyId: store.accessKeyId, secretAccessKey: store.secretAccessKey },
    });
    try {
      await s3.send(new PutObjectCommand({ Bucket: 'team-lake', Key: 'quarry/report.pdf', Body: 'not the lake\'s' }));
      const refused = await runQuarry(['warehouse', 'move-data', 's3://team-lake/quarry', '--project', dir]);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('s3://team-lake/quarry/ holds s3://team-lake/quarry/report.pdf, which is not this lake\'s: move the lake into an empty prefix; nothing was changed');
      expect(parse(readFileSync(projectFile(), 'utf8')).warehouse?.data_path).toBeUndefined();
      await s3.send(new DeleteObjectCommand({ Bucket: 'team-lake', Key: 'quarry/report.pdf' }));
    } finally {
      s3.destroy();
    }
  }, 60_000);

  it('moves the data into the bucket with its history, and the service reads and writes it there', async () => {
    const moved = await runQuarry(['warehouse', 'move-data', 's3://team-lake/quarry', '--project', dir]);
    expect(moved.stderr + moved.stdout).not.toContain(store.secretAccessKey);
    expect(moved.status, moved.stderr).toBe(0);
    expect(moved.stdout).toMatch(/Moved the lake's data into s3:\/\/team-lake\/quarry\/: \d+ file\(s\).*1 table\(s\) read back the same/);
    expect(parse(readFileSync(projectFile(), 'utf8')).warehouse.data_path).toBe('s3://team-lake/quarry');
    expect(existsSync(`${project.ctx.paths.lakeCatalogFile}.before-move`)).toBe(true);

    // The old folder is kept for the user to delete; the service must not need it.
    await rm(project.ctx.paths.lakeDataDir, { recursive: true });
    project = await project.restart();
    expect(project.ctx.lake.dataPath).toBe('s3://team-lake/quarry/');
    expect(await fingerprint(project)).toEqual(before);
    const snapshots = await project.request('GET', '/api/warehouse/snapshots?limit=50', { as: 'viewer' });
    expect(snapshots.json.some((snapshot: { job: { kind: string } | null }) => snapshot.job?.kind === 'sync')).toBe(true);

    writeFileSync(path.join(dir, 'data', 'gapminder', 'mini-gapminder-africa.csv'), readFileSync(path.join(GAPMINDER, 'mini-gapminder-europe.csv')));
    expect(await syncAndWait(project, 'gapminder')).toMatchObject({ type: 'sync_completed' });
    const [albania] = await project.query('SELECT count(*) AS n FROM raw_gapminder.gapminder WHERE country = \'Albania\'');
    expect(albania?.n).toBe(2);
  }, 120_000);
});
