import { hostname } from 'node:os';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { thisProcess } from '../os/index.ts';
import { openStore, type Store } from '../store/index.ts';
import { checkLeftoverJobs } from './platform-checks.ts';

describe('jobs left running by a process that stopped', () => {
  let dir: string;
  let file: string;
  let store: Store;
  const now = '2026-11-29T10:00:00.000Z';

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'quarry-leftover-'));
    file = path.join(dir, 'platform.db');
    store = openStore(file);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const runningJob = async (kind: 'sync' | 'run', target: string, process: { pid: number; started: string; host?: string }): Promise<number> => {
    const owner = { host: hostname(), worker: 'cli', ...process };
    const job = await store.jobs.enqueueUnlessActive({ kind, target, fullRefresh: false, requestedBy: 'cli' }, now, owner);
    if (job === undefined) throw new Error('not queued');
    await store.jobs.markRunning(job.id, now, owner);
    return job.id;
  };

  it('are marked interrupted and named by doctor, with their models; a job of a running process is left alone', async () => {
    const stopped = spawnSync('true');
    const gone = await runningJob('run', 'orders_enriched+', { pid: stopped.pid, started: '1' });
    await store.modelRuns.markRunning(gone, 'orders_enriched', now);
    const live = await runningJob('sync', 'orders', thisProcess());

    const finding = await checkLeftoverJobs(async () => openStore(file), new Date(now));
    expect(finding).toEqual({
      check: 'Jobs', level: 'warning',
      detail: `marked interrupted, since the process running each had stopped: run of orders_enriched+ (job ${String(gone)}, pid ${String(stopped.pid)})`,
      fix: 'run them again (quarry sync, quarry build)',
    });
    expect(await store.jobs.get(gone)).toMatchObject({ status: 'interrupted', error: `Interrupted: the process running it (pid ${String(stopped.pid)}) stopped before the job finished` });
    expect(await store.modelRuns.forJob(gone)).toEqual([expect.objectContaining({ model: 'orders_enriched', status: 'error' })]);
    expect(await store.jobs.get(live)).toMatchObject({ status: 'running' });

    expect(await checkLeftoverJobs(async () => openStore(file), new Date(now))).toEqual({ check: 'Jobs', level: 'ok', detail: 'none is left running by a process that stopped' });
  });

  it('tells a process whose id was given to another since from the one recorded', async () => {
    const reused = await runningJob('sync', 'orders', { pid: process.pid, started: 'another start time' });
    expect((await checkLeftoverJobs(async () => openStore(file), new Date(now))).level).toBe('warning');
    expect(await store.jobs.get(reused)).toMatchObject({ status: 'interrupted' });
  });

  it('leaves a job owned on another host to its queue, whatever runs under its pid here', async () => {
    const stopped = spawnSync('true');
    const elsewhere = await runningJob('sync', 'orders', { pid: stopped.pid, started: '1', host: 'another-host.internal' });
    expect((await checkLeftoverJobs(async () => openStore(file), new Date(now))).level).toBe('ok');
    expect(await store.jobs.get(elsewhere)).toMatchObject({ status: 'running', worker: 'cli' });
  });
});
