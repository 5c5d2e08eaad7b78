import { once } from 'node:events';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeContext } from '../../src/context.ts';
import { startQuarry } from '../support/quarry.ts';

const SOURCES = 'sources:\n  - name: orders\n    type: local_files\n    local_files: { directory: data/orders }\n';

async function writeRows(file: string, rows: number): Promise<void> {
  const stream = createWriteStream(file);
  stream.write('id,name,amount\n');
  for (let index = 0; index < rows; index++) {
    if (!stream.write(`${String(index)},name-${String(index % 100)},${String(index % 13)}.5\n`)) await once(stream, 'drain');
  }
  stream.end();
  await once(stream, 'finish');
}

describe('stopping the service', () => {
  it('lets a running sync finish within the grace period', async () => {
    const quarry = await startQuarry({ sourcesYaml: SOURCES, users: [] });
    const directory = path.join(quarry.dir, 'data', 'orders');
    mkdirSync(directory, { recursive: true });
    await writeRows(path.join(directory, 'a.csv'), 300_000);
    const started = quarry.nextEvent('sync_started');
    const completed = quarry.nextEvent('sync_completed');
    await quarry.ctx.jobs.startSync('orders', { fullRefresh: false, requestedBy: 'test' });
    await started;
    await quarry.app.close();
    await closeContext(quarry.ctx, 60_000);
    expect((await completed).rows).toBe(300_000);
  });

  it('interrupts a sync that outlasts the grace period, keeping the previous data', async () => {
    const quarry = await startQuarry({ sourcesYaml: SOURCES, users: [] });
    const directory = path.join(quarry.dir, 'data', 'orders');
    mkdirSync(directory, { recursive: true });
    await writeRows(path.join(directory, 'a.csv'), 10);
    const first = quarry.nextEvent('sync_completed');
    await quarry.ctx.jobs.startSync('orders', { fullRefresh: false, requestedBy: 'test' });
    await first;
    await writeRows(path.join(directory, 'b.csv'), 3_000_000);
    const started = quarry.nextEvent('sync_started');
    const failed = quarry.nextEvent('sync_failed');
    await quarry.ctx.jobs.startSync('orders', { fullRefresh: false, requestedBy: 'test' });
    await started;
    await quarry.app.close();
    const closing = closeContext(quarry.ctx, 10);
    expect((await failed).error).toBe('The sync was interrupted because the service is stopping; the previous data is intact');
    await closing;
    expect(await quarry.query('SELECT count(*)::INTEGER AS n FROM raw_orders.orders')).toEqual([{ n: 10 }]);
  });
});
