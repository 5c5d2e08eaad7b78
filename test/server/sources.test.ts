import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const SOURCES = `sources:
  - name: orders
    type: local_files
    description: Shop orders
    local_files:
      directory: data/orders
      file_pattern: "*.csv"
  - name: archive
    type: csv
    enabled: false
    csv:
      directory: data/archive
  - name: lake
    type: filesystem
    filesystem:
      bucket_url: hdfs://namenode/data
`;

describe('sources, sync and logs', () => {
  let quarry: TestQuarry;
  let dataDir: string;

  beforeEach(async () => {
    quarry = await startQuarry({ sourcesYaml: SOURCES });
    dataDir = path.join(quarry.dir, 'data', 'orders');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path.join(dataDir, 'a.csv'), 'id,amount\n1,10\n2,20\n');
    writeFileSync(path.join(dataDir, 'b.csv'), 'id,amount\n3,30\n');
  });
  afterEach(async () => {
    await quarry.close();
  });

  async function sync(body: unknown = {}): Promise<{ rows?: number; error?: string }> {
    const done = Promise.race([
      quarry.nextEvent('sync_completed', (event) => event.source === 'orders'),
      quarry.nextEvent('sync_failed', (event) => event.source === 'orders'),
    ]);
    const response = await quarry.request('POST', '/api/sources/orders/sync', { as: 'editor', body });
    expect(response.status).toBe(200);
    return done;
  }

  it('lists never-synced sources as not_synced with every documented field', async () => {
    const response = await quarry.request('GET', '/api/sources', { as: 'viewer' });
    expect(response.status).toBe(200);
    expect(response.json.map((source: { name: string }) => source.name)).toEqual(['orders', 'archive', 'lake']);
    expect(response.json[0]).toEqual({
      name: 'orders', type: 'local_files', enabled: true, last_sync: null, row_count: 0, status: 'not_synced',
      freshness: { last_update: null, days_old: null }, tables: [],
    });
    expect(response.json[1].enabled).toBe(false);
  });

  it('syncs a local_files source: events, rows in the replica, status, details, history and logs', async () => {
    const started = quarry.nextEvent('sync_started');
    const response = await quarry.request('POST', '/api/sources/orders/sync', { as: 'editor' });
    expect(response.json).toEqual({ success: true, message: 'Sync of orders started', source_name: 'orders', started_at: expect.stringMatching(ISO_UTC) });
    expect(await started).toEqual({ type: 'sync_started', source: 'orders', timestamp: expect.stringMatching(ISO_UTC) });
    expect(await quarry.nextEvent('sync_completed')).toEqual({ type: 'sync_completed', source: 'orders', rows: 3, timestamp: expect.stringMatching(ISO_UTC) });
    expect(await quarry.query('SELECT id, amount FROM raw_orders.orders ORDER BY id')).toEqual([
      { id: 1, amount: 10 }, { id: 2, amount: 20 }, { id: 3, amount: 30 },
    ]);

    const list = await quarry.request('GET', '/api/sources', { as: 'viewer' });
    expect(list.json[0]).toEqual({
      name: 'orders', type: 'local_files', enabled: true, last_sync: expect.stringMatching(ISO_UTC), row_count: 3, status: 'synced',
      freshness: { last_update: expect.stringMatching(ISO_UTC), days_old: 0 },
      tables: [{ name: 'orders', row_count: 3, schema: 'raw_orders' }],
    });

    const details = await quarry.request('GET', '/api/sources/orders/details', { as: 'viewer' });
    expect(details.json.name).toBe('orders');
    expect(details.json.config).toEqual(expect.objectContaining({ name: 'orders', type: 'local_files', enabled: true, local_files: expect.objectContaining({ directory: 'data/orders', file_pattern: '*.csv' }) }));
    expect(details.json.history).toEqual([{ timestamp: expect.stringMatching(ISO_UTC), status: 'success', duration_seconds: expect.any(Number), rows_processed: 3, full_refresh: false, files_failed: 0, worker: expect.stringMatching(/^.+:\d+$/) }]);
    expect(details.json.row_count).toBe(3);

    const logs = await quarry.request('GET', '/api/sources/orders/logs', { as: 'viewer' });
    expect(logs.json[0]).toEqual({ timestamp: expect.stringMatching(ISO_UTC), level: 'SUCCESS', message: expect.stringMatching(/^Sync finished: 3 rows in/) });
    expect(logs.json.map((entry: { level: string }) => entry.level)).toContain('INFO');
    const activity = await quarry.request('GET', '/api/logs?limit=2', { as: 'viewer' });
    expect(activity.json).toHaveLength(2);
    expect(activity.json[0].message).toMatch(/^\[orders\] Sync finished/);

    const health = await quarry.request('GET', '/api/health/platform', { as: 'viewer' });
    expect(health.json.database.raw_tables).toBe(1);
    expect(health.json.database.size_mb).toBeGreaterThan(0);
  });

  it('re-syncs incrementally: new, changed and deleted files, checked by content', async () => {
    await sync();
    writeFileSync(path.join(dataDir, 'c.csv'), 'id,amount\n4,40\n');
    writeFileSync(path.join(dataDir, 'a.csv'), 'id,amount\n1,11\n');
    utimesSync(path.join(dataDir, 'a.csv'), new Date(), new Date(Date.now() + 5000));
    rmSync(path.join(dataDir, 'b.csv'));
    expect(await sync()).toEqual(expect.objectContaining({ rows: 2 }));
    expect(await quarry.query('SELECT id, amount, _quarry_file FROM raw_orders.orders ORDER BY id')).toEqual([
      { id: 1, amount: 11, _quarry_file: path.join(dataDir, 'a.csv') },
      { id: 4, amount: 40, _quarry_file: path.join(dataDir, 'c.csv') },
    ]);
    const logs = await quarry.request('GET', '/api/sources/orders/logs', { as: 'viewer' });
    const messages = logs.json.map((entry: { message: string }) => entry.message);
    expect(messages).toContain('Loaded 2 of 2 file(s); 0 unchanged');
    expect(messages).toContain('Removed the rows of 1 deleted file(s)');
    writeFileSync(path.join(dataDir, 'd.csv'), 'id,amount\n5,50\n');
    await sync();
    expect((await quarry.request('GET', '/api/sources/orders/logs', { as: 'viewer' })).json.map((entry: { message: string }) => entry.message))
      .toContain('Loaded 1 of 3 file(s); 2 unchanged');
  });

  it('adds new columns and widens conflicting types without losing data', async () => {
    await sync();
    writeFileSync(path.join(dataDir, 'c.csv'), 'id,amount,note\nX-9,12.5,late\n');
    expect(await sync()).toEqual(expect.objectContaining({ rows: 4 }));
    const rows = await quarry.query('SELECT id::VARCHAR AS id, amount::DOUBLE AS amount, note FROM raw_orders.orders ORDER BY _quarry_file, id');
    expect(rows).toEqual([
      { id: '1', amount: 10, note: null }, { id: '2', amount: 20, note: null }, { id: '3', amount: 30, note: null },
      { id: 'X-9', amount: 12.5, note: 'late' },
    ]);
    const messages = (await quarry.request('GET', '/api/sources/orders/logs', { as: 'viewer' })).json.map((entry: { message: string }) => entry.message);
    expect(messages).toContain('Schema change: added column note (VARCHAR)');
    expect(messages).toContain('Schema change: widened column id from BIGINT to VARCHAR');
  });

  it('skips a file DuckDB cannot read, names it and its line, loads the others, and succeeds with a warning', async () => {
    await sync();
    const broken = path.join(dataDir, 'broken.csv');
    // Latin-1 bytes where DuckDB expects UTF-8: DuckDB's own read_csv refuses the file.
    writeFileSync(broken, Buffer.from('id,amount\n7,70\n8,caf\xe9\n', 'latin1'));
    writeFileSync(path.join(dataDir, 'c.csv'), 'id,amount\n4,40\n');
    const completed = quarry.nextEvent('sync_completed');
    expect(await sync()).toEqual(expect.objectContaining({ rows: 4 }));
    // The event keeps the contract's fields; the count of skipped files is in the history below.
    expect(await completed).toEqual({ type: 'sync_completed', source: 'orders', rows: 4, timestamp: expect.stringMatching(ISO_UTC) });
    expect(await quarry.query('SELECT count(*)::INTEGER AS n FROM raw_orders.orders')).toEqual([{ n: 4 }]);

    const messages = (await quarry.request('GET', '/api/sources/orders/logs', { as: 'viewer' })).json
      .filter((entry: { level: string }) => entry.level === 'WARNING').map((entry: { message: string }) => entry.message);
    expect(messages).toContainEqual(expect.stringMatching(new RegExp(`^Skipped ${broken.replaceAll('/', '\\/')}: DuckDB cannot read it \\(.*[Ll]ine.*\\); it is tried again when it changes$`)));
    expect(messages).toContain('1 file(s) could not be read and were skipped; the other files are loaded');
    const history = (await quarry.request('GET', '/api/sources/orders/details', { as: 'viewer' })).json.history;
    expect(history.map((entry: { status: string; files_failed: number }) => [entry.status, entry.files_failed])).toEqual([['success', 1], ['success', 0]]);
    const listing = (await quarry.request('GET', '/api/sources/orders/csv-files', { as: 'viewer' })).json.files;
    expect(listing.find((file: { filename: string }) => file.filename === 'broken.csv')).toEqual(expect.objectContaining({ loaded: false, rows_loaded: 0, status: 'unreadable' }));
    const health = (await quarry.request('GET', '/api/health/platform', { as: 'viewer' })).json;
    expect(health.warnings).toContain('The last sync of orders skipped 1 file(s) DuckDB cannot read');
    expect(health.sync_failures).toEqual([]);

    writeFileSync(broken, 'id,amount\n7,70\n');
    utimesSync(broken, new Date(), new Date(Date.now() + 5000));
    expect(await sync()).toEqual(expect.objectContaining({ rows: 5 }));
    const fixed = (await quarry.request('GET', '/api/sources/orders/details', { as: 'viewer' })).json.history[0];
    expect(fixed).toEqual(expect.objectContaining({ status: 'success', files_failed: 0 }));
  });

  it('refuses to replace loaded rows with an empty directory, unless a full refresh asks for it', async () => {
    await sync();
    rmSync(path.join(dataDir, 'a.csv'));
    rmSync(path.join(dataDir, 'b.csv'));
    const refused = await sync();
    expect(refused.error).toMatch(/refusing to replace 3 loaded rows with nothing/);
    expect(await quarry.query('SELECT count(*)::INTEGER AS n FROM raw_orders.orders')).toEqual([{ n: 3 }]);
    expect(await sync({ full_refresh: true })).toEqual(expect.objectContaining({ rows: 0 }));
    expect((await quarry.request('GET', '/api/sources', { as: 'viewer' })).json[0].status).toBe('empty');
  });

  it('lists a source under sync_failures while its latest sync failed, once, and drops it when a later sync succeeds', async () => {
    const failuresOf = async (): Promise<{ source: string; error: string }[]> =>
      (await quarry.request('GET', '/api/health/platform', { as: 'viewer' })).json.sync_failures;
    await sync();
    rmSync(path.join(dataDir, 'a.csv'));
    rmSync(path.join(dataDir, 'b.csv'));
    expect((await sync()).error).toMatch(/refusing to replace/);
    expect((await sync()).error).toMatch(/refusing to replace/);
    expect(await failuresOf()).toEqual([{ source: 'orders', timestamp: expect.stringMatching(ISO_UTC), error: expect.stringMatching(/refusing to replace 3 loaded rows/) }]);

    writeFileSync(path.join(dataDir, 'c.csv'), 'id,amount\n4,40\n');
    expect(await sync()).toEqual(expect.objectContaining({ rows: 1 }));
    const health = (await quarry.request('GET', '/api/health/platform', { as: 'viewer' })).json;
    expect(health.sync_failures).toEqual([]);
    expect(health.warnings).not.toContain('The last sync of orders failed');
  });

  it('rebuilds on full refresh', async () => {
    await sync();
    writeFileSync(path.join(dataDir, 'a.csv'), 'id,amount\n1,99\n');
    expect(await sync({ full_refresh: true })).toEqual(expect.objectContaining({ rows: 2 }));
    const history = (await quarry.request('GET', '/api/sources/orders/details', { as: 'viewer' })).json.history;
    expect(history[0].full_refresh).toBe(true);
  });

  it('lets one of several concurrent sync requests win; the rest get 409 sync_in_progress', async () => {
    // Enough rows that the sync is still running when the other requests arrive.
    writeFileSync(path.join(dataDir, 'big.csv'), `id,amount\n${Array.from({ length: 400_000 }, (_, index) => `${String(index)},${String(index % 97)}`).join('\n')}\n`);
    const cookie = await quarry.login('editor');
    const headers = { 'x-requested-with': 'XMLHttpRequest' };
    const responses = await Promise.all(Array.from({ length: 5 }, () => quarry.request('POST', '/api/sources/orders/sync', { cookie, headers })));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409]);
    expect(responses.find((response) => response.status === 409)?.json).toEqual({ detail: 'A sync of "orders" is already queued or running', code: 'sync_in_progress' });
    await quarry.jobsIdle();
    expect((await quarry.request('GET', '/api/sources/orders/details', { as: 'viewer' })).json.history).toHaveLength(1);
  });

  it.each([
    ['an unknown source', '/api/sources/nope/sync', {}, 404, 'source_not_found'],
    ['a disabled source', '/api/sources/archive/sync', {}, 400, 'source_disabled'],
    ['a source in storage Quarry does not read (HDFS)', '/api/sources/lake/sync', {}, 400, 'source_type_not_supported'],
    ['a bad body', '/api/sources/orders/sync', { full_refresh: 'yes' }, 400, 'invalid_request'],
    ['an unknown body field', '/api/sources/orders/sync', { fullRefresh: true }, 400, 'invalid_request'],
  ])('refuses to sync %s and queues nothing', async (_name, url, body, status, code) => {
    const response = await quarry.request('POST', url, { as: 'editor', body });
    expect(response.status).toBe(status);
    expect(response.json.code).toBe(code);
    await quarry.jobsIdle();
    expect((await quarry.request('GET', '/api/sources/orders/details', { as: 'viewer' })).json.history).toEqual([]);
  });

  it('lets viewers read but not sync', async () => {
    const response = await quarry.request('POST', '/api/sources/orders/sync', { as: 'viewer' });
    expect(response.status).toBe(403);
    expect((await quarry.request('GET', '/api/sources/orders/logs', { as: 'viewer' })).status).toBe(200);
    expect((await quarry.request('GET', '/api/sources/nope/details', { as: 'viewer' })).json.code).toBe('source_not_found');
    expect((await quarry.request('GET', '/api/sources/nope/logs', { as: 'viewer' })).status).toBe(404);
    expect((await quarry.request('GET', '/api/logs?limit=-1', { as: 'viewer' })).status).toBe(400);
  });
});
