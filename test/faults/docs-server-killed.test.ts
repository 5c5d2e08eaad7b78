import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { captureLog, type CapturedLog } from '../support/captured-log.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

const UNAVAILABLE = { detail: 'The transformation-docs site is not available right now', code: 'upstream_unavailable' };
const RESTARTING = 'the transformation-docs server exited; restarting';

describe('the transformation-docs server killed while Quarry runs', () => {
  let quarry: TestQuarry;
  let captured: CapturedLog;

  beforeAll(async () => {
    captured = captureLog();
    quarry = await startQuarry({ transform: true, docsServer: true, log: captured.log });
    await quarry.ctx.transform.idle(); // start() generates the docs once
  }, 120_000);

  afterAll(async () => {
    await quarry.close();
  });

  /** SIGKILL to the docs server's process, then waits until Quarry has seen it exit. */
  const killDocsServer = async (): Promise<void> => {
    const { pid } = quarry.docsServer!.status();
    expect(pid).toBeTypeOf('number');
    process.kill(pid!, 'SIGKILL');
    await vi.waitFor(() => { expect(quarry.docsServer!.status().state).not.toBe('running'); }, { timeout: 10_000 });
  };

  const docsIndex = () => quarry.request('GET', '/transform-docs/', { as: 'viewer' });

  it('answers 502 upstream_unavailable while it is down, JSON for clients and a page for browsers, and serves the docs again once it has restarted itself', async () => {
    expect((await docsIndex()).status).toBe(200);
    const firstPid = quarry.docsServer!.status().pid;

    await killDocsServer();
    const json = await quarry.request('GET', '/manifest.json', { as: 'viewer', headers: { accept: 'application/json' } });
    expect(json.status).toBe(502);
    expect(json.json).toEqual(UNAVAILABLE);
    const page = await quarry.request('GET', '/transform-docs/', { as: 'viewer', headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(page.status).toBe(502);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain(UNAVAILABLE.detail);
    expect((await quarry.request('GET', '/api/status', { as: 'viewer' })).json.services.transform_docs).toBe('not_running');

    await vi.waitFor(() => { expect(quarry.docsServer!.status().state).toBe('running'); }, { timeout: 30_000, interval: 100 });
    expect(quarry.docsServer!.status().pid).not.toBe(firstPid);
    const index = await docsIndex();
    expect(index.status).toBe(200);
    expect(index.text).toContain('dbt');
    const manifest = await quarry.request('GET', '/manifest.json', { as: 'viewer' });
    expect(manifest.status).toBe(200);
    expect(manifest.json).toHaveProperty('nodes');
    expect((await quarry.request('GET', '/api/status', { as: 'viewer' })).json.services.transform_docs).toBe('running');
    expect(captured.records()).toContainEqual(expect.objectContaining({ level: 40, signal: 'SIGKILL', delayMs: 1000, msg: RESTARTING }));
  }, 60_000);

  it('stops restarting after five exits within a minute, says so in the log and the status, and keeps answering 502', async () => {
    // The first test's exit is one of the five; each restart waits twice as long as the one before (1, 2, 4, 8 s).
    for (let exit = 2; exit <= 5; exit++) {
      await vi.waitFor(() => { expect(quarry.docsServer!.status().state).toBe('running'); }, { timeout: 30_000, interval: 100 });
      await killDocsServer();
    }
    expect(quarry.docsServer!.status()).toEqual({ state: 'failed', pid: null });
    expect(captured.records().filter((record) => record.msg === RESTARTING).map((record) => record.delayMs)).toEqual([1000, 2000, 4000, 8000]);
    expect(captured.records()).toContainEqual(expect.objectContaining({
      level: 50, signal: 'SIGKILL', msg: 'the transformation-docs server keeps exiting; it is stopped until the next start',
    }));
    expect((await quarry.request('GET', '/api/status', { as: 'viewer' })).json.services.transform_docs).toBe('not_running');
    const response = await quarry.request('GET', '/manifest.json', { as: 'viewer', headers: { accept: 'application/json' } });
    expect(response.status).toBe(502);
    expect(response.json).toEqual(UNAVAILABLE);
  }, 90_000);
});
