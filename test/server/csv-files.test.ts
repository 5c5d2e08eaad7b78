import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureLog, type CapturedLog } from '../support/captured-log.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

const SOURCES = `sources:
  - name: uploads
    type: csv
    csv:
      directory: data/uploads
  - name: api
    type: rest_api
    rest_api:
      base_url: http://127.0.0.1:9/
      endpoints: [{ path: items }]
`;

function csvForm(name: string, content: string | Uint8Array, field = 'file'): FormData {
  const form = new FormData();
  form.append(field, new Blob([content], { type: 'text/csv' }), name);
  return form;
}

describe('CSV upload, listing and deletion', () => {
  let quarry: TestQuarry;
  let directory: string;
  let log: CapturedLog;
  beforeEach(async () => {
    log = captureLog();
    quarry = await startQuarry({ sourcesYaml: SOURCES, projectConfig: { limits: { max_upload_mb: 1 } }, log: log.log });
    directory = path.join(quarry.dir, 'data', 'uploads');
    mkdirSync(directory, { recursive: true });
  });
  afterEach(async () => {
    await quarry.close();
  });

  it('uploads a CSV, announces it, syncs it when asked, and lists it as loaded', async () => {
    const uploaded = quarry.nextEvent('csv_uploaded');
    const completed = quarry.nextEvent('sync_completed');
    const response = await quarry.request('POST', '/api/sources/uploads/upload-csv?trigger_sync=true', { as: 'editor', body: csvForm('../../sneaky/March.csv', 'id,total\n1,5\n2,6\n') });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      success: true, message: 'Uploaded March.csv; sync started', source_name: 'uploads',
      file_path: path.join(directory, 'March.csv'), file_name: 'March.csv', auto_sync: true,
    });
    expect(await uploaded).toEqual({ type: 'csv_uploaded', source: 'uploads', file: 'March.csv', timestamp: expect.any(String) });
    expect((await completed).rows).toBe(2);
    expect(readFileSync(path.join(directory, 'March.csv'), 'utf8')).toBe('id,total\n1,5\n2,6\n');

    const listing = await quarry.request('GET', '/api/sources/uploads/csv-files', { as: 'viewer' });
    expect(listing.json).toEqual({
      source_name: 'uploads', directory, file_pattern: '*.csv',
      files: [{
        filename: 'March.csv', path: path.join(directory, 'March.csv'), size: 17, modified: expect.any(String),
        on_disk: true, loaded: true, rows_loaded: 2, status: 'success',
      }],
      total_files: 1, files_on_disk: 1, files_loaded: 1,
    });
  });

  it('replaces an existing file atomically and does not sync unless asked', async () => {
    writeFileSync(path.join(directory, 'a.csv'), 'id\n1\n');
    const response = await quarry.request('POST', '/api/sources/uploads/upload-csv', { as: 'editor', body: csvForm('a.csv', 'id\n1\n2\n') });
    expect(response.json.auto_sync).toBe(false);
    expect(readFileSync(path.join(directory, 'a.csv'), 'utf8')).toBe('id\n1\n2\n');
    const listing = await quarry.request('GET', '/api/sources/uploads/csv-files', { as: 'viewer' });
    expect(listing.json.files[0]).toEqual(expect.objectContaining({ loaded: false, status: 'pending', rows_loaded: 0 }));
  });

  it.each([
    ['a file that is not .csv', () => csvForm('data.xlsx', 'x'), 400, 'invalid_request'],
    ['a dot file', () => csvForm('.hidden.csv', 'x'), 400, 'invalid_request'],
    ['the wrong part name', () => csvForm('a.csv', 'x', 'upload'), 400, 'invalid_request'],
    ['a file over max_upload_mb', () => csvForm('big.csv', new Uint8Array(1024 * 1024 + 10).fill(65)), 413, 'upload_too_large'],
  ])('refuses %s and leaves nothing behind', async (_name, form, status, code) => {
    const response = await quarry.request('POST', '/api/sources/uploads/upload-csv', { as: 'editor', body: form() });
    expect(response.status).toBe(status);
    expect(response.json.code).toBe(code);
    expect(readdirSync(directory)).toEqual([]);
  });

  it('refuses a JSON body, a non-file source, an unknown source and a viewer', async () => {
    expect((await quarry.request('POST', '/api/sources/uploads/upload-csv', { as: 'editor', body: { file: 'x' } })).json.code).toBe('invalid_request');
    const noBoundary = await quarry.request('POST', '/api/sources/uploads/upload-csv', { as: 'editor', body: 'x', headers: { 'content-type': 'multipart/form-data' } });
    expect({ status: noBoundary.status, body: noBoundary.json }).toEqual({ status: 400, body: { detail: 'The multipart/form-data Content-Type has no boundary', code: 'invalid_request' } });
    const notCsv = await quarry.request('POST', '/api/sources/api/upload-csv', { as: 'editor', body: csvForm('a.csv', 'x') });
    expect(notCsv.json).toEqual({ detail: 'The source "api" has type rest_api; only local_files and csv sources take CSV files', code: 'not_a_csv_source' });
    expect((await quarry.request('POST', '/api/sources/nope/upload-csv', { as: 'editor', body: csvForm('a.csv', 'x') })).status).toBe(404);
    expect((await quarry.request('POST', '/api/sources/uploads/upload-csv', { as: 'viewer', body: csvForm('a.csv', 'x') })).status).toBe(403);
    expect(readdirSync(directory)).toEqual([]);
  });

  it('refuses an upload of many form parts with a message that says what is wrong, and keeps nothing', async () => {
    const form = new FormData();
    for (let field = 0; field < 8; field++) form.append(`note${String(field)}`, 'x');
    form.append('file', new Blob(['id\n1\n'], { type: 'text/csv' }), 'parts.csv');
    const response = await quarry.request('POST', '/api/sources/uploads/upload-csv', { as: 'editor', body: form });
    expect(response.status).toBe(413);
    expect(response.json.code).toBe('upload_too_large');
    expect(response.json.detail).toMatch(/^The upload has too many (parts|form fields)/);
    const listed = await quarry.request('GET', '/api/sources/uploads/csv-files', { as: 'viewer' });
    expect(JSON.stringify(listed.json)).not.toContain('parts.csv');
  });

  it('refuses an upload with two file parts with 400, and keeps neither file', async () => {
    const form = new FormData();
    form.append('file', new Blob(['id\n1\n'], { type: 'text/csv' }), 'first-of-two.csv');
    form.append('file', new Blob(['id\n2\n'], { type: 'text/csv' }), 'second-of-two.csv');
    const response = await quarry.request('POST', '/api/sources/uploads/upload-csv', { as: 'editor', body: form });
    expect({ status: response.status, body: response.json }).toEqual({
      status: 400, body: { detail: 'The upload has more than the one file part named "file": send one file per request', code: 'invalid_request' },
    });
    const listed = await quarry.request('GET', '/api/sources/uploads/csv-files', { as: 'viewer' });
    expect(JSON.stringify(listed.json)).not.toMatch(/(first|second)-of-two\.csv/);
  });

  it('answers 400 for a multipart body that breaks off or is no multipart, and keeps no part of the file', async () => {
    const boundary = '4d4575a111dd8df210a4db9d29d2b93e';
    const bodies = [
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.csv"\r\nContent-Type: text/csv\r\n\r\nid,name\n1,a\n`,
      `--${boundary}\r\nNone--${boundary}--\r\n`,
      'not multipart at all',
    ];
    for (const body of bodies) {
      const response = await quarry.request('POST', '/api/sources/uploads/upload-csv', {
        as: 'editor', body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      expect({ status: response.status, body: response.json }).toEqual({
        status: 400, body: { detail: 'The multipart/form-data body could not be read: Unexpected end of multipart data', code: 'invalid_request' },
      });
    }
    expect(readdirSync(directory)).toEqual([]);
  });

  it('takes an upload the browser abandons (a closed tab) for no error of its own, and keeps no part of the file', async () => {
    const boundary = 'quarry-abandoned-upload';
    const cookie = await quarry.login('editor');
    const request = http.request(new URL('/api/sources/uploads/upload-csv', quarry.url), {
      method: 'POST',
      headers: { cookie, 'x-requested-with': 'XMLHttpRequest', 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' },
    });
    request.on('error', () => undefined);
    request.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="abandoned.csv"\r\nContent-Type: text/csv\r\n\r\nid\n`);
    request.write('1\n'.repeat(50_000));
    await expect.poll(() => readdirSync(directory).some((name) => name.startsWith('.upload-'))).toBe(true);
    request.destroy();
    await expect.poll(() => readdirSync(directory)).toEqual([]);
    // The handler has given up by the time its temp file is gone; a moment more lets an error reach the log.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(log.records().filter((record) => record.level >= 40)).toEqual([]);
  });

  it('deletes a file, announces it, and removes its rows in a background sync', async () => {
    writeFileSync(path.join(directory, 'a.csv'), 'id\n1\n2\n');
    writeFileSync(path.join(directory, 'b.csv'), 'id\n3\n');
    const first = quarry.nextEvent('sync_completed');
    await quarry.request('POST', '/api/sources/uploads/sync', { as: 'editor' });
    expect((await first).rows).toBe(3);
    const deletedEvent = quarry.nextEvent('csv_deleted');
    const second = quarry.nextEvent('sync_completed');
    const response = await quarry.request('DELETE', `/api/sources/uploads/csv-files?file_path=${encodeURIComponent(path.join(directory, 'a.csv'))}`, { as: 'editor' });
    expect(response.json).toEqual({
      success: true, message: 'Deleted a.csv; its rows are being removed', file_path: path.join(directory, 'a.csv'), source_name: 'uploads', background_sync: true,
    });
    expect(await deletedEvent).toEqual({ type: 'csv_deleted', source: 'uploads', file: 'a.csv', timestamp: expect.any(String) });
    expect((await second).rows).toBe(1);
    expect(existsSync(path.join(directory, 'a.csv'))).toBe(false);
  });

  it('creates a missing source directory on upload, and answers 404 for a delete in a missing directory', async () => {
    rmSync(directory, { recursive: true });
    const missing = await quarry.request('DELETE', `/api/sources/uploads/csv-files?file_path=${encodeURIComponent(path.join(directory, 'a.csv'))}`, { as: 'editor' });
    expect(missing.status).toBe(404);
    expect(missing.json.code).toBe('file_not_found');
    const response = await quarry.request('POST', '/api/sources/uploads/upload-csv', { as: 'editor', body: csvForm('first.csv', 'id\n1\n') });
    expect(response.status).toBe(200);
    expect(readFileSync(path.join(directory, 'first.csv'), 'utf8')).toBe('id\n1\n');
  });

  it('refuses paths outside the directory, through symlinks, or off the pattern, and deletes nothing', async () => {
    const outside = path.join(quarry.dir, 'secret.csv');
    writeFileSync(outside, 'x\n');
    symlinkSync(outside, path.join(directory, 'link.csv'));
    writeFileSync(path.join(directory, 'notes.txt'), 'x');
    const attempts = [
      [`${directory}/../../secret.csv`, 400, 'unsafe_path'],
      [outside, 400, 'unsafe_path'],
      ['secret.csv', 400, 'unsafe_path'],
      [path.join(directory, 'link.csv'), 400, 'unsafe_path'],
      [path.join(directory, 'notes.txt'), 400, 'unsafe_path'],
      [path.join(directory, 'missing.csv'), 404, 'file_not_found'],
      ['/etc/passwd', 400, 'unsafe_path'],
    ] as const;
    for (const [filePath, status, code] of attempts) {
      const response = await quarry.request('DELETE', `/api/sources/uploads/csv-files?file_path=${encodeURIComponent(filePath)}`, { as: 'editor' });
      expect({ filePath, status: response.status, code: response.json.code }).toEqual({ filePath, status, code });
    }
    expect(existsSync(outside)).toBe(true);
    expect(existsSync(path.join(directory, 'notes.txt'))).toBe(true);
    expect((await quarry.request('DELETE', '/api/sources/uploads/csv-files', { as: 'editor' })).status).toBe(400);
  });
});
