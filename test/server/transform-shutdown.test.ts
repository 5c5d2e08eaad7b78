import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeContext } from '../../src/context.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { startQuarry } from '../support/quarry.ts';

/** The platform DB as the next start would see it. */
function reopenStore(dir: string): Store {
  return openStore(path.join(dir, '.quarry', 'platform.db'));
}

function writeModel(dir: string, name: string, sql: string): void {
  const marts = path.join(dir, 'transform', 'models', 'marts');
  mkdirSync(marts, { recursive: true });
  writeFileSync(path.join(marts, `${name}.sql`), sql);
}

describe('stopping the service during a model run', () => {
  it('lets a running model finish within the grace period', async () => {
    const quarry = await startQuarry({ users: [], prepare: (dir) => { writeModel(dir, 'quick', 'select 42 as answer'); } });
    const started = quarry.nextEvent('transform_run_started');
    const completed = quarry.nextEvent('transform_run_completed');
    await quarry.ctx.transform.startRun('quick', { cascade: true, requestedBy: 'test' });
    await started;
    await quarry.app.close();
    await closeContext(quarry.ctx, 60_000);
    expect((await completed).model).toBe('quick');
    const store = reopenStore(quarry.dir);
    expect((await store.modelRuns.latestByModel()).get('quick')?.status).toBe('success');
    await store.close();
    rmSync(quarry.dir, { recursive: true, force: true });
  });

  it('interrupts a model that outlasts the grace period and records it', async () => {
    const quarry = await startQuarry({
      users: [],
      prepare: (dir) => { writeModel(dir, 'endless', 'select count(*) as n from range(1000000000000) a(i) where hash(i) = 1'); },
    });
    const started = quarry.nextEvent('transform_run_started');
    const failed = quarry.nextEvent('transform_run_failed');
    const job = await quarry.ctx.transform.startRun('endless', { cascade: true, requestedBy: 'test' });
    await started;
    await quarry.app.close();
    await closeContext(quarry.ctx, 10);
    expect(await failed).toMatchObject({ model: 'endless', error: 'The run was interrupted because the service is stopping' });
    const store = reopenStore(quarry.dir);
    expect(await store.jobs.latest('run', 'endless')).toMatchObject({ id: job.id, status: 'interrupted' });
    expect((await store.modelRuns.latestByModel()).get('endless')).toMatchObject({ status: 'error', error: 'The run was interrupted because the service is stopping' });
    await store.close();
    rmSync(quarry.dir, { recursive: true, force: true });
  }, 60_000);
});
