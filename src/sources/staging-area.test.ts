import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction, withWriteConnection, type LakeLocation } from '../warehouse/index.ts';
import { loadStagedTables } from './load-staged-tables.ts';
import { StagingArea, type StagedTable } from './staging-area.ts';

const RECORDS = 60_000;

describe('the staging area', () => {
  let root: string;
  let lake: LakeLocation;
  let staged: StagedTable[];

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'quarry-staging-'));
    lake = { catalog: { kind: 'sqlite', file: path.join(root, 'catalog.sqlite') }, dataPath: `${path.join(root, 'data')}/` };
    const staging = await StagingArea.create(root, 1);
    const table = staging.table({ name: 'events', disposition: 'replace' });
    // About 6 MB of lines in pages of 500; the last record's `seen_at` is no timestamp, so the column can only be text.
    for (let first = 0; first < RECORDS; first += 500) {
      await table.write(Array.from({ length: 500 }, (_, index) => {
        const id = first + index;
        return { id, seen_at: id === RECORDS - 1 ? 'not a time' : `2026-01-01T00:00:${String(id % 60).padStart(2, '0')}Z`, note: 'x'.repeat(40) };
      }));
    }
    staged = await staging.finish();
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('splits a large table\'s records over several files, each record written once', () => {
    const [events] = staged;
    expect(events?.records).toBe(RECORDS);
    expect(events?.files.length).toBeGreaterThan(1);
    const ids = events?.files.flatMap((file) => readFileSync(file.path, 'utf8').trimEnd().split('\n').map((line) => (JSON.parse(line) as { id: number }).id));
    expect(ids).toEqual(Array.from({ length: RECORDS }, (_, id) => id));
  });

  it('loads those files as one: a type the last file contradicts is inferred over every record, the text kept as extracted', async () => {
    const rows = await withWriteConnection(lake, AbortSignal.timeout(60_000), (connection) => inTransaction(connection, async () => {
      await loadStagedTables(connection, 'api', staged, { fullRefresh: false, now: new Date('2026-11-25T10:00:00Z') });
      const reader = await connection.runAndReadAll(`SELECT count(*)::INTEGER, min(seen_at), typeof(min(seen_at)) FROM raw_api.events`);
      return reader.getRows();
    }));
    expect(rows).toEqual([[RECORDS, '2026-01-01T00:00:00Z', 'VARCHAR']]);
  });
});
