import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StagingArea, type StagedTable } from './staging-area.ts';

const RECORDS = 60_000;

describe('the staging area', () => {
  let root: string;
  let staged: StagedTable[];

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'quarry-staging-'));
    const staging = await StagingArea.create(root, 1);
    const table = staging.table({ name: 'events', disposition: 'replace' });
    // About 6 MB of lines in pages of 500.
    for (let first = 0; first < RECORDS; first += 500) {
      await table.write(Array.from({ length: 500 }, (_, index) => {
        const id = first + index;
        return { id, note: 'x'.repeat(80) };
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
});
