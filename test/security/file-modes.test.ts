import { chmodSync, statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

const modeOf = (file: string): string => (statSync(file).mode & 0o777).toString(8);

describe('the platform database is readable by its owner only', () => {
  let quarry: TestQuarry | undefined;
  afterEach(async () => {
    await quarry?.close();
  });

  it('is created 0600 with its -wal and -shm files', async () => {
    quarry = await startQuarry();
    await quarry.request('GET', '/api/status', { as: 'viewer' });
    const file = quarry.ctx.paths.platformDb;
    expect([modeOf(file), modeOf(`${file}-wal`), modeOf(`${file}-shm`)]).toEqual(['600', '600', '600']);
  });

  it('is tightened to 0600 when an older Quarry left it readable by others', async () => {
    quarry = await startQuarry();
    const file = quarry.ctx.paths.platformDb;
    for (const companion of [file, `${file}-wal`, `${file}-shm`]) chmodSync(companion, 0o644);
    const again = openStore(file);
    await again.close();
    expect([modeOf(file), modeOf(`${file}-wal`), modeOf(`${file}-shm`)]).toEqual(['600', '600', '600']);
  });
});
