import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startObjectStore, type ObjectStore } from '../support/object-store.ts';
import { runQuarry } from '../support/quarry-process.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';
import { fingerprintWarehouse as fingerprint } from '../support/warehouse-fingerprint.ts';

const GAPMINDER = path.resolve(import.meta.dirname, '..', 'fixtures', 'real-world', 'tidyverse', 'readr', 'inst', 'extdata');
const IRIS = path.resolve(import.meta.dirname, '..', 'fixtures', 'real-world', 'tidyverse', 'readxl', 'tests', 'testthat', 'sheets', 'iris-excel-xlsx.xlsx');
const SOURCES_YAML = 'sources:\n  - name: gapminder\n    type: local_files\n    local_files: { directory: data/gapminder, file_pattern: "mini-gapminder-*.csv" }\n';
const scratch = mkdtempSync(path.join(tmpdir(), 'quarry-bucket-backup-'));

let store: ObjectStore;
let s3: S3Client;

const restoreFlags = (): string[] => ['--endpoint', store.endpoint, '--url-style', 'path', '--no-ssl', '--region', store.region];
const awsKeys = (): Record<string, string> => ({ AWS_ACCESS_KEY_ID: store.accessKeyId, AWS_SECRET_ACCESS_KEY: store.secretAccessKey });

async function keysUnder(bucket: string, prefix: string): Promise<string[]> {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return (listed.Contents ?? []).map((object) => object.Key ?? '');
}

/** A gapminder project whose object_store: reaches the test's server, its lake on disk or in `lakeBucket`. */
async function gapminderProject(options: { lakeBucket?: string; schedules?: unknown[] } = {}): Promise<TestQuarry> {
  const project = await startQuarry({
    sourcesYaml: SOURCES_YAML,
    projectConfig: {
      object_store: { endpoint: store.endpoint, region: store.region, url_style: 'path', use_ssl: false, access_key_id_env: 'S3_KEY_ID', secret_access_key_env: 'S3_SECRET' },
      ...options.lakeBucket === undefined ? {} : { warehouse: { data_path: options.lakeBucket } },
      ...options.schedules === undefined ? {} : { schedules: options.schedules },
    },
    prepare: (dir) => {
      cpSync(GAPMINDER, path.join(dir, 'data', 'gapminder'), { recursive: true });
      // Where the keys are kept: the service, the CLI and a restored project read them from there.
      appendFileSync(path.join(dir, '.env'), `S3_KEY_ID=${store.accessKeyId}\nS3_SECRET=${store.secretAccessKey}\n`);
    },
  });
  expect(await syncAndWait(project, 'gapminder')).toMatchObject({ type: 'sync_completed', rows: 26 });
  return project;
}

beforeAll(async () => {
  store = await startObjectStore();
  for (const bucket of ['backups', 'lake']) await store.createBucket(bucket);
  s3 = new S3Client({
    region: store.region, endpoint: `http://${store.endpoint}`, forcePathStyle: true,
    credentials: { accessKeyId: store.accessKeyId, secretAccessKey: store.secretAccessKey },
  });
}, 120_000);

afterAll(async () => {
  s3.destroy();
  await store.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('quarry backup and restore with a bucket', () => {
  it('backs a running project up into the bucket, keeps the newest two, and restores the newest into a fresh folder', async () => {
    const project = await gapminderProject();
    try {
      const taken: string[] = [];
      for (let round = 0; round < 3; round++) {
        const backup = await runQuarry(['backup', 's3://backups/team', '--keep', '2', '--project', project.dir]);
        expect(backup.status, backup.stderr).toBe(0);
        expect(backup.stdout + backup.stderr).not.toContain(store.secretAccessKey);
        taken.push(/into (s3:\/\/backups\/team\/quarry-backup-\d{8}T\d{9}Z\/)/.exec(backup.stdout)?.[1] ?? '');
      }
      const folders = new Set((await keysUnder('backups', 'team/')).map((key) => key.split('/')[1]));
      expect([...folders].sort()).toEqual(taken.slice(1).map((url) => url.split('/')[4]));

      const restoredDir = path.join(scratch, 'restored');
      const refused = await runQuarry(['restore', 's3://backups/team', '--project', restoredDir, ...restoreFlags()], { ...awsKeys(), AWS_SECRET_ACCESS_KEY: 'wrong-secret-key' });
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(/Could not list s3:\/\/backups\/team\/: .*HTTP 403/);
      expect(refused.stderr).not.toContain('wrong-secret-key');

      const restored = await runQuarry(['restore', 's3://backups/team', '--project', restoredDir, ...restoreFlags()], awsKeys());
      expect(restored.status, restored.stderr).toBe(0);
      expect(restored.stdout).toContain(taken[2]);
      const before = await fingerprint(project);
      await project.stop();
      const again = await startQuarry({ projectDir: restoredDir });
      try {
        expect(await fingerprint(again)).toEqual(before);
      } finally {
        await again.close();
      }
    } finally {
      await project.close();
    }
  }, 180_000);

  it('records the snapshot of a lake in a bucket instead of its files, and refuses a restore whose files are gone', async () => {
    const project = await gapminderProject({ lakeBucket: 's3://lake/team' });
    try {
      const backup = await runQuarry(['backup', 's3://backups/lake-team', '--project', project.dir]);
      expect(backup.status, backup.stderr).toBe(0);
      expect(backup.stdout).toContain('The lake\'s data stays in s3://lake/team/');
      const folder = /into s3:\/\/backups\/(lake-team\/quarry-backup-\d{8}T\d{9}Z\/)/.exec(backup.stdout)?.[1] ?? '';
      const keys = await keysUnder('backups', folder);
      expect(keys.some((key) => key.includes('/warehouse/data/'))).toBe(false);
      const manifest = JSON.parse(await (await s3.send(new GetObjectCommand({ Bucket: 'backups', Key: `${folder}quarry-backup.json` }))).Body?.transformToString() ?? '{}');
      const snapshots = await project.request('GET', '/api/warehouse/snapshots?limit=1', { as: 'viewer' });
      expect(manifest.lake).toEqual({ data_path: 's3://lake/team/', snapshot_id: snapshots.json[0].id });

      const before = await fingerprint(project);
      await project.stop();
      const restoredDir = path.join(scratch, 'restored-lake');
      const restored = await runQuarry(['restore', `s3://backups/${folder}`, '--project', restoredDir, ...restoreFlags()], awsKeys());
      expect(restored.status, restored.stderr).toBe(0);
      const again = await startQuarry({ projectDir: restoredDir });
      try {
        expect(again.ctx.lake.dataPath).toBe('s3://lake/team/');
        expect(await fingerprint(again)).toEqual(before);
      } finally {
        await again.close();
      }

      // As the lake's maintenance does once a snapshot expires: a file that snapshot reads is deleted.
      const [dataFile] = (await keysUnder('lake', 'team/')).filter((key) => key.endsWith('.parquet'));
      await s3.send(new DeleteObjectCommand({ Bucket: 'lake', Key: dataFile }));
      const gone = await runQuarry(['restore', `s3://backups/${folder}`, '--project', path.join(scratch, 'too-late'), ...restoreFlags()], awsKeys());
      expect(gone.status).toBe(1);
      expect(gone.stderr).toMatch(/snapshot \d+ reads 1 file\(s\) no longer in s3:\/\/lake\/team\/.*Restore a newer backup/);
    } finally {
      await project.close();
    }
  }, 180_000);

  it('runs a backup schedule into the bucket, keeping what it says', async () => {
    const project = await gapminderProject({ schedules: [{ name: 'offsite', kind: 'backup', cron: '0 3 * * *', to: 's3://backups/scheduled', keep: 1 }] });
    try {
      const listed = await project.request('GET', '/api/schedules', { as: 'viewer' });
      expect(listed.json).toMatchObject([{ name: 'offsite', kind: 'backup' }]);
      for (let round = 0; round < 2; round++) {
        const run = await project.ctx.schedules.runAndWait('offsite', 'test');
        expect(run.outcome, run.detail ?? '').toBe('success');
      }
      const folders = new Set((await keysUnder('backups', 'scheduled/')).map((key) => key.split('/')[1]));
      expect(folders.size).toBe(1);
      const logged = (await project.ctx.store.logs.latest(50)).map((entry) => entry.message).join('\n');
      expect(logged).toMatch(/Schedule offsite: backed up into s3:\/\/backups\/scheduled\/quarry-backup-\d{8}T\d{9}Z\/ \(\d+ files\); deleted 1 older backup/);
    } finally {
      await project.close();
    }
  }, 180_000);
});

describe('quarry source add for a bucket', () => {
  it('adds a filesystem source over a bucket (a spreadsheet among its CSV files) from flags, tests it, syncs it, and keeps the key in .env only', async () => {
    const dir = path.join(scratch, 'cli-source');
    const init = await runQuarry(['init', dir, '--admin-email', 'a@example.com', '--admin-password', 'a-good-password', '--non-interactive']);
    expect(init.status, init.stderr).toBe(0);
    // The server is on this machine: a project reaching it must say so.
    appendFileSync(path.join(dir, '.quarry', 'project.yml'), 'network:\n  allow_private: [127.0.0.1]\n');
    for (const continent of ['asia', 'oceania']) {
      await s3.send(new PutObjectCommand({ Bucket: 'lake', Key: `exports/${continent}.csv`, Body: readFileSync(path.join(GAPMINDER, `mini-gapminder-${continent}.csv`)) }));
    }
    // A spreadsheet among them: downloaded, then read in a process of its own like a local one.
    await s3.send(new PutObjectCommand({ Bucket: 'lake', Key: 'exports/iris.xlsx', Body: readFileSync(IRIS) }));
    const added = await runQuarry([
      'source', 'add', '--project', dir, '--non-interactive', '--type', 'filesystem', '--name', 'exports',
      '--set', 'bucket_url=s3://lake/exports', '--set', `endpoint=${store.endpoint}`, '--set', 'url_style=path', '--set', 'use_ssl=false',
      '--set', 'access_key_id_env=EXPORTS_KEY_ID', '--set', 'secret_access_key_env=EXPORTS_SECRET',
      '--secret', `EXPORTS_KEY_ID=${store.accessKeyId}`, '--secret', `EXPORTS_SECRET=${store.secretAccessKey}`, '--test', '--sync',
    ]);
    expect(added.status, added.stderr).toBe(0);
    expect(added.stdout).toContain('3 object(s) match * under s3://lake/exports/');
    expect(added.stdout).toMatch(/158 rows/);
    expect(readFileSync(path.join(dir, '.quarry', 'sources.yml'), 'utf8')).not.toContain(store.secretAccessKey);
    expect(readFileSync(path.join(dir, '.env'), 'utf8')).toContain(`EXPORTS_SECRET='${store.secretAccessKey}'`);
  }, 120_000);
});
