import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initProject } from '../../src/cli/init.ts';
import { launchBrowser, signIn } from '../support/browser.ts';
import { spawnQuarry, type QuarryProcess } from '../support/quarry-process.ts';
import { sessionCookieOf } from '../support/quarry.ts';

const EMAIL = 'admin@restart.test';
const PASSWORD = 'restart-password-123';

/**
 * Runs in the page before its scripts: notes when each WebSocket is made, opens and closes, by the
 * page's clock, which the test controls. A string: the test's TypeScript has no DOM types.
 */
const SOCKET_JOURNAL = `(() => {
  const journal = [];
  window.socketJournal = journal;
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      journal.push({ event: 'attempt', at: Date.now() });
      this.addEventListener('open', () => { journal.push({ event: 'open', at: Date.now() }); });
      this.addEventListener('close', () => { journal.push({ event: 'close', at: Date.now() }); });
    }
  };
})()`;

interface JournalEntry { event: 'attempt' | 'open' | 'close'; at: number }

const journalOf = (page: Page) => page.evaluate<JournalEntry[]>('window.socketJournal');

/** Moves the page's paused clock on in small steps until its socket journal has `count` entries. */
async function stepUntilJournalHas(page: Page, count: number): Promise<void> {
  for (let steps = 0; (await journalOf(page)).length < count; steps++) {
    if (steps > 200) throw new Error(`the page's socket journal never reached ${String(count)} entries: ${JSON.stringify(await journalOf(page))}`);
    // A refused connection closes on its own, in real time; only then does the page set its next timer.
    const pending = await journalOf(page);
    if (pending.at(-1)?.event === 'attempt') {
      await expect.poll(async () => (await journalOf(page)).length, { timeout: 10_000 }).toBeGreaterThan(pending.length);
      continue;
    }
    await page.clock.runFor(250);
  }
}

async function stop(server: QuarryProcess, signal: NodeJS.Signals): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = once(server.child, 'exit');
  server.child.kill(signal);
  await exited;
}

describe('the page socket across a real restart of the Quarry process', () => {
  let dir: string;
  let browser: Browser;
  let server: QuarryProcess | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'quarry-restart-'));
    await initProject(dir, { name: 'Restart project', adminEmail: EMAIL, adminPassword: PASSWORD, nonInteractive: true }, {});
    writeFileSync(path.join(dir, '.quarry', 'sources.yml'), 'sources:\n  - name: orders\n    type: local_files\n    local_files: { directory: data/orders }\n');
    mkdirSync(path.join(dir, 'data', 'orders'), { recursive: true });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser.close();
    if (server) await stop(server, 'SIGTERM');
    await rm(dir, { recursive: true, force: true });
  });

  it('reconnects with doubling backoff after a kill and restart on the same port, then shows a sync live without reloading', { timeout: 120_000 }, async () => {
    server = await spawnQuarry(dir);
    const { url } = server;
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.clock.install();
    await context.addInitScript(SOCKET_JOURNAL);
    const page = await context.newPage();
    await signIn(page, url, EMAIL, PASSWORD);
    await page.waitForURL(`${url}/`);
    await page.goto(`${url}/sources/orders`);
    const live = page.locator('#live-state');
    const status = page.locator('#source-status .status');
    await expect.poll(() => live.textContent()).toBe('Live');
    await expect.poll(() => status.textContent()).toBe('not synced');
    let navigations = 0;
    page.on('framenavigated', (frame) => { if (frame === page.mainFrame()) navigations++; });

    await page.clock.pauseAt(Date.now() + 1000);
    await stop(server, 'SIGKILL');
    await expect.poll(() => live.textContent(), { timeout: 10_000 }).toBe('Reconnecting…');
    // Three refused attempts while Quarry is down: [open, close, attempt, close, attempt, close, attempt, close] after the first.
    await stepUntilJournalHas(page, 9);

    server = await spawnQuarry(dir, { port: Number(new URL(url).port) });
    expect(server.url).toBe(url);
    await stepUntilJournalHas(page, 11);
    await page.clock.resume();
    const journal = await journalOf(page);
    expect(journal.map((entry) => entry.event)).toEqual(['attempt', 'open', 'close', 'attempt', 'close', 'attempt', 'close', 'attempt', 'close', 'attempt', 'open']);
    const waits = journal.flatMap((entry, index) => (entry.event === 'attempt' && index > 0 ? [entry.at - journal[index - 1]!.at] : []));
    expect(waits).toEqual([1000, 2000, 4000, 8000]);
    await expect.poll(() => live.textContent()).toBe('Live');

    const login = await fetch(`${url}/api/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    });
    // The file arrives now, not before a start, which would sync it at once.
    writeFileSync(path.join(dir, 'data', 'orders', 'a.csv'), 'id,amount\n1,10\n2,20\n3,30\n');
    const sync = await fetch(`${url}/api/sources/orders/sync`, { method: 'POST', headers: { cookie: sessionCookieOf(login.headers), 'x-requested-with': 'XMLHttpRequest' } });
    expect(sync.status).toBe(200);
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toBe('synced');
    await expect.poll(() => page.locator('#source-rows').textContent()).toBe('3');
    await expect.poll(() => page.locator('#history tbody tr').count()).toBe(1);
    expect(navigations).toBe(0);
  });
});
