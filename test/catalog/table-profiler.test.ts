import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TableProfiler } from '../../src/catalog/index.ts';
import { createLogger } from '../../src/logger.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

describe("the catalog's profile refreshes", () => {
  let quarry: TestQuarry;

  beforeAll(async () => {
    quarry = await startQuarry();
  }, 120_000);
  afterAll(async () => {
    await quarry.close();
  });

  it('shares one refresh among those asked for while another runs: it reads what is stale as it begins', async () => {
    const { store, readers } = quarry.ctx;
    const readStale = store.tableProfiles.stale.bind(store.tableProfiles);
    const { promise: firstMayGoOn, resolve: letFirstGoOn } = Promise.withResolvers<undefined>();
    let reads = 0;
    // The first read of what is stale is held until the test lets it go on; every read is the store's own.
    const stale = vi.spyOn(store.tableProfiles, 'stale').mockImplementation(async () => {
      reads += 1;
      if (reads === 1) await firstMayGoOn;
      return readStale();
    });
    try {
      const profiler = new TableProfiler({ readers, store, log: createLogger({ level: 'silent' }), now: () => new Date() });
      const first = profiler.refresh();
      await expect.poll(() => reads).toBe(1);
      // Jobs that end while it runs ask for three more: one refresh, reading what is stale once it begins, covers them.
      const later = [profiler.refresh(), profiler.refresh(), profiler.refresh()];
      letFirstGoOn(undefined);
      await Promise.all([first, ...later]);
      expect(reads).toBe(2);
    } finally {
      stale.mockRestore();
    }
  });

  it('goes on refreshing after the platform store failed to say what is stale', async () => {
    const { store, readers } = quarry.ctx;
    const stale = vi.spyOn(store.tableProfiles, 'stale').mockRejectedValueOnce(new Error('the platform store is out of reach'));
    try {
      const profiler = new TableProfiler({ readers, store, log: createLogger({ level: 'silent' }), now: () => new Date() });
      await expect(profiler.refresh()).resolves.toBeUndefined();
      await expect(profiler.refresh()).resolves.toBeUndefined();
      expect(stale).toHaveBeenCalledTimes(2);
      await expect(profiler.idle()).resolves.toBeUndefined();
    } finally {
      stale.mockRestore();
    }
  });
});
