import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TableProfiler } from '../../src/catalog/index.ts';
import { createLogger } from '../../src/logger.ts';
import type { Store } from '../../src/store/index.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

describe("the catalog's profile refreshes", () => {
  let quarry: TestQuarry;

  beforeAll(async () => {
    quarry = await startQuarry({
      sourcesYaml: 'sources:\n  - name: parcels\n    type: local_files\n    local_files: { directory: data/parcels }\n',
      prepare: (dir) => {
        const folder = path.join(dir, 'data', 'parcels');
        mkdirSync(folder, { recursive: true });
        writeFileSync(path.join(folder, 'parcels.csv'), 'parcel_id,weight\nP-1,2.5\nP-2,\nP-3,0.75\n');
      },
    });
    await syncAndWait(quarry, 'parcels');
    await quarry.jobsIdle();
  }, 120_000);
  afterAll(async () => {
    await quarry.close();
  });

  it('shares one refresh among those asked for while another runs: it reads what is stale as it begins', async () => {
    const profiles = quarry.ctx.store.tableProfiles;
    const { promise: firstMayGoOn, resolve: letFirstGoOn } = Promise.withResolvers<undefined>();
    let reads = 0;
    // The store as the profiler uses it, the first read of what is stale held until the test lets it go on.
    const store = {
      tableProfiles: {
        stale: async () => {
          reads += 1;
          if (reads === 1) await firstMayGoOn;
          return profiles.stale();
        },
        save: (...saved: Parameters<typeof profiles.save>) => profiles.save(...saved),
      },
    } as unknown as Store;
    const profiler = new TableProfiler({ readers: quarry.ctx.readers, store, log: createLogger({ level: 'silent' }), now: () => new Date() });

    const first = profiler.refresh();
    await expect.poll(() => reads).toBe(1);
    // Jobs that end while the first refresh runs ask for three more; one refresh, reading what is stale once it begins, covers them.
    const later = [profiler.refresh(), profiler.refresh(), profiler.refresh()];
    await syncAndWait(quarry, 'parcels', true);
    letFirstGoOn(undefined);
    await Promise.all([first, ...later]);
    expect(reads).toBe(2);
  }, 60_000);
});
