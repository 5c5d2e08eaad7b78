import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

describe('filesystem sources on this machine', () => {
  let quarry: TestQuarry;

  beforeAll(async () => {
    quarry = await startQuarry({
      sourcesYaml: [
        'sources:',
        '  - name: events', '    type: filesystem', '    filesystem:', '      bucket_url: exports/events', '      file_pattern: "*.jsonl"',
        '  - name: lake', '    type: filesystem', '    filesystem:', '      bucket_url: hdfs://namenode/data', '',
      ].join('\n'),
      projectConfig: { data_roots: ['data', 'exports'] },
    });
    const folder = path.join(quarry.dir, 'exports', 'events');
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'day-1.jsonl'), '{"id":1,"kind":"click","meta":{"x":1}}\n{"id":2,"kind":"view","meta":{"x":2}}\n');
    writeFileSync(path.join(folder, 'day-2.jsonl'), '{"id":3,"kind":"click","meta":{"x":3}}\n');
    writeFileSync(path.join(folder, 'notes.txt'), 'not matched by the pattern');
  });

  afterAll(async () => {
    await quarry.close();
  });

  it('loads the matching files of a local folder named by bucket_url, nested fields as STRUCT', async () => {
    expect(await syncAndWait(quarry, 'events')).toMatchObject({ type: 'sync_completed', rows: 3 });
    expect(await quarry.query('SELECT count(*) AS n, sum(meta.x) AS x, count(DISTINCT _quarry_file) AS files FROM raw_events.events')).toEqual([{ n: 3, x: 6, files: 2 }]);
  });

  it('refuses a scheme it does not read (HDFS) with the reason, before queueing anything', async () => {
    const response = await quarry.request('POST', '/api/sources/lake/sync', { as: 'editor', body: {} });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      code: 'source_type_not_supported',
      detail: 'The source "lake" has its files in hdfs://namenode/data: s3:// (S3 and compatible servers), gs:// (Google Cloud Storage, with HMAC keys) and az:// (Azure Blob Storage) are readable, not this scheme; point bucket_url at one of those or at a local folder',
    });
  });

  it('has no objects to list for a folder on this machine, an unknown source or someone not signed in', async () => {
    expect((await quarry.request('GET', '/api/sources/events/objects')).status).toBe(401);
    const unknown = await quarry.request('GET', '/api/sources/nope/objects', { as: 'viewer' });
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe('source_not_found');
    const response = await quarry.request('GET', '/api/sources/events/objects', { as: 'viewer' });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      code: 'not_an_object_source', detail: 'The source "events" does not read object storage; only a filesystem source over s3://, gs:// or az:// has objects',
    });
  });
});
