import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LakeWriter, type LakeLocation } from '../warehouse/index.ts';
import type { StagedFile } from './connector.ts';
import { loadStagedTables } from './load-staged-tables.ts';

/** More files than DuckDB samples by default (32). */
const FILES = 40;

describe('loading a table staged in many JSON-lines files', () => {
  let root: string;
  let lake: LakeLocation;

  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'quarry-load-staged-'));
    lake = { catalog: { kind: 'sqlite', file: path.join(root, 'catalog.sqlite') }, dataPath: `${path.join(root, 'data')}/` };
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('infers over every record of every file: a key and a type only the last file has are kept, the text as extracted', async () => {
    const files: StagedFile[] = Array.from({ length: FILES }, (_, index) => {
      const file = path.join(root, `table-0-${String(index)}.jsonl`);
      const last = index === FILES - 1;
      const record = { id: index, seen_at: last ? 'not a time' : '2026-01-01T00:00:00Z', ...last ? { extra: 'only here' } : {} };
      writeFileSync(file, `${JSON.stringify(record)}\n`);
      return { path: file, format: 'jsonl' };
    });
    const writer = new LakeWriter(lake, path.join(root, 'writer.lock'));
    const rows = await writer.write(({ transaction }) => transaction(async (connection) => {
      await loadStagedTables(connection, 'api', [{ spec: { name: 'events', disposition: 'replace' }, files, records: FILES }], {
        fullRefresh: false, now: new Date('2026-11-25T10:00:00Z'),
      });
      const reader = await connection.runAndReadAll(
        'SELECT count(*)::INTEGER, min(seen_at), typeof(min(seen_at)), max(extra) FROM raw_api.events',
      );
      return reader.getRows();
    }), { signal: AbortSignal.timeout(60_000) });
    expect(rows).toEqual([[FILES, '2026-01-01T00:00:00Z', 'VARCHAR', 'only here']]);
  });
});
