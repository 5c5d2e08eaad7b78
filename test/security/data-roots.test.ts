import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { logMessages, syncAndWait } from '../support/sync.ts';

const SECRET = 'outside-secret-7f3a91';

const SOURCES = `sources:
  - name: inside
    type: local_files
    local_files: { directory: data/inside, file_pattern: "**/*.csv" }
  - name: drop
    type: csv
    csv: { directory: data/drop }
`;

function csvForm(name: string, content: string): FormData {
  const form = new FormData();
  form.append('file', new Blob([content], { type: 'text/csv' }), name);
  return form;
}

describe('file sources and uploads stay inside the data roots', () => {
  let quarry: TestQuarry;
  let outside: string;
  const sourcesFile = () => readFileSync(path.join(quarry.dir, '.quarry', 'sources.yml'), 'utf8');
  const version = async () => (await quarry.request('GET', '/api/sources-file', { as: 'editor' })).json.version as string;

  beforeAll(async () => {
    outside = mkdtempSync(path.join(tmpdir(), 'quarry-outside-'));
    writeFileSync(path.join(outside, 'secret.csv'), `secret\n${SECRET}\n`);
    mkdirSync(path.join(outside, 'folder'));
    writeFileSync(path.join(outside, 'folder', 'more.csv'), `secret\n${SECRET}\n`);
    quarry = await startQuarry({
      sourcesYaml: SOURCES,
      prepare: (dir) => {
        const inside = path.join(dir, 'data', 'inside');
        mkdirSync(inside, { recursive: true });
        mkdirSync(path.join(dir, 'data', 'drop'));
        writeFileSync(path.join(inside, 'good.csv'), 'secret\nharmless\n');
        // Links an editor could not make, but a careless host might: a file and a folder leading out, and /etc.
        symlinkSync(path.join(outside, 'secret.csv'), path.join(inside, 'linked.csv'));
        symlinkSync(path.join(outside, 'folder'), path.join(inside, 'linked-folder'));
        symlinkSync('/etc', path.join(dir, 'data', 'etc'));
      },
    });
  });
  afterAll(async () => {
    await quarry.close();
    rmSync(outside, { recursive: true, force: true });
  });

  it.each([
    ['/', '/'],
    ['/etc', '/etc'],
    ['.quarry', '<project>/.quarry'],
    ['<project>/.quarry', '<project>/.quarry'],
    ['data/../.quarry', '<project>/.quarry'],
    ['data/etc', '<project>/data/etc'],
  ])('refuses an editor\'s local_files source at %s, writing nothing', async (written, shown) => {
    const directory = written.replace('<project>', quarry.dir);
    const before = sourcesFile();
    const added = await quarry.request('POST', '/api/sources', {
      as: 'editor', body: { name: 'sneaky', type: 'local_files', config: { directory, file_pattern: '**/*' }, version: await version() },
    });
    expect(added.status).toBe(400);
    expect(added.json).toEqual({
      code: 'outside_data_roots',
      detail: expect.stringContaining(`local_files.directory: ${shown.replace('<project>', quarry.dir)} is outside the data roots (data)`),
    });
    const tested = await quarry.request('POST', '/api/source-test', { as: 'editor', body: { type: 'local_files', config: { directory } } });
    expect(tested.json).toMatchObject({ code: 'outside_data_roots' });
    const edited = await quarry.request('PUT', '/api/sources/inside', { as: 'editor', body: { config: { directory }, version: await version() } });
    expect(edited.json).toMatchObject({ code: 'outside_data_roots' });
    expect(sourcesFile()).toBe(before);
    expect(quarry.ctx.sources.map((source) => source.name)).toEqual(['inside', 'drop']);
  });

  it('refuses a file_pattern that climbs out of the folder', async () => {
    const added = await quarry.request('POST', '/api/sources', {
      as: 'editor', body: { name: 'climber', type: 'local_files', config: { directory: 'data', file_pattern: '../.quarry/*.json' }, version: await version() },
    });
    expect(added.status).toBe(400);
    expect(added.json.detail).toContain('local_files.file_pattern: must stay inside the folder');
  });

  it('syncs a source inside data/ and skips, with a warning, the files that lead outside through symlinks', async () => {
    const end = await syncAndWait(quarry, 'inside');
    expect(end).toMatchObject({ type: 'sync_completed', rows: 1 });
    // The linked folder's file is either not listed at all or skipped the same way: never read.
    expect(await logMessages(quarry, 'inside', 'WARNING')).toContain(
      `Skipped ${path.join(quarry.dir, 'data', 'inside', 'linked.csv')}: it leads outside the data roots (data) through a symlink`,
    );
    const rows = await quarry.request('POST', '/api/query', { as: 'viewer', body: { sql: 'SELECT secret FROM raw_inside.inside' } });
    expect(rows.json.rows).toEqual([['harmless']]);
    const listing = await quarry.request('GET', '/api/sources/inside/csv-files', { as: 'viewer' });
    expect(listing.json.files.map((file: { filename: string }) => file.filename)).toEqual(['good.csv']);
  });

  it('uploads into a source inside data/, and refuses one whose folder was since replaced by a link leading out', async () => {
    const saved = await quarry.request('POST', '/api/sources/drop/upload-csv', { as: 'editor', body: csvForm('one.csv', 'id\n1\n') });
    expect(saved.status).toBe(200);
    const drop = path.join(quarry.dir, 'data', 'drop');
    renameSync(drop, `${drop}-moved`);
    symlinkSync(outside, drop);
    try {
      const refused = await quarry.request('POST', '/api/sources/drop/upload-csv', { as: 'editor', body: csvForm('planted.csv', 'id\n2\n') });
      expect(refused.status).toBe(400);
      expect(refused.json).toEqual({ code: 'outside_data_roots', detail: expect.stringContaining(`${drop} is outside the data roots (data) (it leads to ${outside})`) });
      expect(existsSync(path.join(outside, 'planted.csv'))).toBe(false);
      expect(readdirSync(outside).sort()).toEqual(['folder', 'secret.csv']);
      const listing = await quarry.request('GET', '/api/sources/drop/csv-files', { as: 'viewer' });
      expect(listing.json).toMatchObject({ code: 'outside_data_roots' });
      const sync = await syncAndWait(quarry, 'drop');
      expect(sync).toMatchObject({ type: 'sync_failed', error: expect.stringContaining('is outside the data roots (data)') });
    } finally {
      rmSync(drop);
      renameSync(`${drop}-moved`, drop);
    }
  });
});
