import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

const SOURCES = `sources:
  - name: drops
    type: local_files
    local_files: { directory: data/drops, file_pattern: "*.csv" }
`;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('file watcher', () => {
  let quarry: TestQuarry;
  let directory: string;
  beforeAll(async () => {
    quarry = await startQuarry({ sourcesYaml: SOURCES, watcher: true, projectConfig: { watcher: { debounce_seconds: 1 } } });
    directory = path.join(quarry.dir, 'data', 'drops');
    mkdirSync(directory, { recursive: true });
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('reports its real pid, flags, patterns and directories', async () => {
    const status = await quarry.request('GET', '/api/watcher/status', { as: 'viewer' });
    expect(status.json).toEqual({
      running: true, pid: expect.any(Number), auto_sync_enabled: true, auto_transform_enabled: false, debounce_seconds: 1,
      watch_patterns: ['*.csv', '*.json', '*.jsonl', '*.parquet', '*.xlsx'], watch_directories: [directory],
    });
    expect(status.json.pid).not.toBe(process.pid);
    expect(isAlive(status.json.pid)).toBe(true);
  });

  it('syncs a dropped file after the debounce, once for a burst of files', async () => {
    await quarry.watcher!.whenReady();
    const completed = quarry.nextEvent('sync_completed', (event) => event.source === 'drops');
    writeFileSync(path.join(directory, 'one.csv'), 'id\n1\n');
    writeFileSync(path.join(directory, 'two.csv'), 'id\n2\n3\n');
    writeFileSync(path.join(directory, 'ignored.txt'), 'not a csv');
    expect((await completed).rows).toBe(3);
    await quarry.jobsIdle();
    const history = (await quarry.request('GET', '/api/sources/drops/details', { as: 'viewer' })).json.history;
    expect(history).toHaveLength(1);
  });

  it('restarts the watcher child when it dies', async () => {
    const before = (await quarry.request('GET', '/api/watcher/status', { as: 'viewer' })).json.pid as number;
    process.kill(before, 'SIGKILL');
    await expect.poll(async () => {
      const status = (await quarry.request('GET', '/api/watcher/status', { as: 'viewer' })).json;
      return status.running && status.pid !== before;
    }, { timeout: 10_000, interval: 200 }).toBe(true);
  });
});

describe('file watcher over files that changed while the service was stopped', () => {
  const history = async (quarry: TestQuarry): Promise<{ status: string; rows_processed?: number }[]> =>
    (await quarry.request('GET', '/api/sources/drops/details', { as: 'viewer' })).json.history;

  it('syncs them at start, and starts no sync when nothing changed', { timeout: 60_000 }, async () => {
    const first = await startQuarry({
      sourcesYaml: SOURCES, watcher: true,
      prepare: (dir) => {
        mkdirSync(path.join(dir, 'data', 'drops'), { recursive: true });
        writeFileSync(path.join(dir, 'data', 'drops', 'before-first-start.csv'), 'id\n1\n2\n');
      },
    });
    await first.jobsIdle();
    expect(await history(first)).toHaveLength(1);
    expect((await first.request('GET', '/api/sources/drops/details', { as: 'viewer' })).json.row_count).toBe(2);
    await first.stop();

    writeFileSync(path.join(first.dir, 'data', 'drops', 'while-stopped.csv'), 'id\n3\n');
    const second = await startQuarry({ sourcesYaml: SOURCES, watcher: true, projectDir: first.dir });
    await second.jobsIdle();
    expect(await history(second)).toHaveLength(2);
    expect((await second.request('GET', '/api/sources/drops/details', { as: 'viewer' })).json.row_count).toBe(3);

    const third = await second.restart();
    try {
      await third.jobsIdle();
      expect(await history(third)).toHaveLength(2);
    } finally {
      await third.close();
      await first.close();
    }
  });
});
