import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readModelGraph } from './manifest.ts';

const MANIFEST = JSON.stringify({
  nodes: { 'model.quarry.orders': { resource_type: 'model', name: 'orders', schema: 'marts', config: { materialized: 'table' }, depends_on: { nodes: [] } } },
});

describe('readModelGraph', () => {
  let targetDir: string;
  beforeEach(async () => { targetDir = await mkdtemp(path.join(tmpdir(), 'quarry-manifest-')); });
  afterEach(async () => { await rm(targetDir, { recursive: true, force: true }); });

  it('reads the models of a whole manifest', async () => {
    await writeFile(path.join(targetDir, 'manifest.json'), MANIFEST);
    expect([...(await readModelGraph(targetDir))?.models.keys() ?? []]).toEqual(['orders']);
  });

  it('has no graph while dbt has written only part of the manifest, instead of failing the request that reads it', async () => {
    await writeFile(path.join(targetDir, 'manifest.json'), MANIFEST.slice(0, MANIFEST.length / 2));
    expect(await readModelGraph(targetDir)).toBeUndefined();
  });
});
