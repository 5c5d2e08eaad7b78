import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LakeLocation } from '../warehouse/index.ts';
import { warehouseSize } from './warehouse-size.ts';

describe('the warehouse size health reports', () => {
  const made: string[] = [];
  const lakeIn = (dir: string): LakeLocation => ({ catalog: { kind: 'sqlite', file: path.join(dir, 'catalog.sqlite') }, dataPath: `${path.join(dir, 'data')}${path.sep}` });
  const newLake = (): { dir: string; lake: LakeLocation } => {
    const dir = mkdtempSync(path.join(tmpdir(), 'quarry-size-'));
    made.push(dir);
    return { dir, lake: lakeIn(dir) };
  };

  afterEach(() => {
    vi.useRealTimers();
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('counts the catalog and every data file, and is null before the lake exists, then measured once it does', async () => {
    const { dir, lake } = newLake();
    expect(await warehouseSize(lake)).toBeNull();
    writeFileSync(path.join(dir, 'catalog.sqlite'), 'c'.repeat(100));
    mkdirSync(path.join(dir, 'data', 'raw_orders', 'orders'), { recursive: true });
    writeFileSync(path.join(dir, 'data', 'raw_orders', 'orders', 'a.parquet'), 'p'.repeat(1000));
    expect(await warehouseSize(lake)).toBe(1100);
  });

  it('answers from a measurement under a minute old, then with the old one while it measures again', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { dir, lake } = newLake();
    writeFileSync(path.join(dir, 'catalog.sqlite'), 'c'.repeat(100));
    mkdirSync(path.join(dir, 'data'));
    expect(await warehouseSize(lake)).toBe(100);
    writeFileSync(path.join(dir, 'data', 'b.parquet'), 'p'.repeat(50));
    vi.advanceTimersByTime(59_000);
    expect(await warehouseSize(lake)).toBe(100);
    vi.advanceTimersByTime(2_000);
    expect(await warehouseSize(lake)).toBe(100);
    await vi.waitFor(async () => { expect(await warehouseSize(lake)).toBe(150); });
  });
});
