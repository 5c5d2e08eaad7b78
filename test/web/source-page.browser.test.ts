import { renameSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, signIn, startOrdersStage } from '../support/browser.ts';
import { EMAILS, PASSWORDS, type TestQuarry } from '../support/quarry.ts';
import type { Role } from '../../src/store/index.ts';

async function openAs(browser: Browser, quarry: TestQuarry, role: Role, width = 1280): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
  await signIn(page, quarry.url, EMAILS[role], PASSWORDS[role]);
  await page.waitForURL(`${quarry.url}/`);
  return page;
}

/** What a person does when dragging a file from their desktop: a drop event carrying the file. */
async function dropFile(page: Page, name: string, content: string): Promise<void> {
  // A string, not a function: the test's TypeScript has no DOM types.
  await page.evaluate(`(() => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([${JSON.stringify(content)}], ${JSON.stringify(name)}, { type: 'text/csv' }));
    document.getElementById('drop-zone').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  })()`);
}

describe('source page in Chromium', () => {
  let quarry: TestQuarry;
  let browser: Browser;
  beforeAll(async () => {
    ({ quarry, browser } = await startOrdersStage());
  });
  afterAll(async () => {
    await browser.close();
    await quarry.close();
  });

  it('syncs live, takes a dropped CSV into the row count, and deletes it after confirming', async () => {
    const page = await openAs(browser, quarry, 'editor');
    await page.getByRole('link', { name: 'orders' }).click();
    await page.waitForURL(`${quarry.url}/sources/orders`);
    const status = page.locator('#source-status .status');
    const rows = page.locator('#source-rows');
    await expect.poll(() => status.textContent()).toBe('not synced');

    await page.getByRole('button', { name: 'Sync now' }).click();
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toBe('synced');
    await expect.poll(() => rows.textContent()).toBe('3');
    // The notice that the sync started gives way to how it ended, not left standing beside it.
    await expect.poll(() => page.locator('#source-message').textContent()).toBe('orders synced: 3 rows loaded');
    await expect.poll(() => page.locator('#history tbody tr').count()).toBe(1);
    expect(await page.locator('#history tbody tr td').nth(1).textContent()).toBe('success');

    await dropFile(page, 'b.csv', 'id,amount\n4,40\n5,50\n');
    await expect.poll(() => page.locator('tr[data-file="b.csv"]').count()).toBe(1);
    await expect.poll(() => rows.textContent(), { timeout: 15_000 }).toBe('5');
    await expect.poll(() => page.locator('#source-message').textContent()).toBe('Uploaded b.csv; orders synced: 5 rows loaded');
    await expect.poll(() => page.locator('tr[data-file="b.csv"] td').nth(3).textContent()).toBe('2');
    await expect.poll(() => page.locator('#source-logs li').count()).toBeGreaterThan(1);
    await screenshot(page, 'source');

    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Delete b.csv' }).click();
    await expect.poll(() => rows.textContent(), { timeout: 15_000 }).toBe('3');
    expect(asked[0]).toMatch(/^Delete b\.csv\?/);
    await expect.poll(() => page.locator('tr[data-file="b.csv"] button').count()).toBe(0);
  });

  it('reconnects its socket after the server drops it and keeps updating live', async () => {
    const page = await openAs(browser, quarry, 'viewer');
    await page.goto(`${quarry.url}/sources/orders`);
    const live = page.locator('#live-state');
    await expect.poll(() => live.textContent()).toBe('Live');
    // The history of the syncs before comes with the page's first API answer, which may land after 'Live'.
    await expect.poll(() => page.locator('#history tbody tr').count()).toBeGreaterThan(0);
    const histories = await page.locator('#history tbody tr').count();
    const dropped = new Set(quarry.app.websocketServer.clients);
    for (const client of dropped) client.close(1012, 'restarting');
    // The page comes back on its own after its backoff (a second or more): wait for a socket that is new.
    await expect.poll(() => [...quarry.app.websocketServer.clients].some((client) => !dropped.has(client)), { timeout: 15_000 }).toBe(true);
    await expect.poll(() => live.textContent(), { timeout: 15_000 }).toBe('Live');
    expect((await quarry.request('POST', '/api/sources/orders/sync', { as: 'editor', body: { full_refresh: true } })).status).toBe(200);
    await expect.poll(() => page.locator('#history tbody tr').count(), { timeout: 15_000 }).toBe(histories + 1);
    expect(await page.locator('#history tbody tr td').nth(4).textContent()).toBe('full refresh');
  });

  it('shows an API error as a readable message', async () => {
    const page = await openAs(browser, quarry, 'editor');
    await page.goto(`${quarry.url}/sources/orders`);
    await dropFile(page, 'notes.txt', 'hello');
    await expect.poll(() => page.locator('#source-message').textContent()).toBe('notes.txt is not a .csv file.');
  });

  it('settles the notice of a sync that ended while the socket was down, once it is back', async () => {
    const page = await openAs(browser, quarry, 'editor');
    await page.goto(`${quarry.url}/sources/orders`);
    const live = page.locator('#live-state');
    await expect.poll(() => live.textContent()).toBe('Live');
    for (const client of quarry.app.websocketServer.clients) client.close(1012, 'restarting');
    await expect.poll(() => live.textContent()).toBe('Reconnecting…');
    const ended = quarry.nextEvent('sync_completed', (event) => event.source === 'orders');
    await page.getByRole('button', { name: 'Sync now' }).click();
    await ended;
    // The outcome was sent while the page could not hear it: the notice still says the sync started.
    await expect.poll(() => page.locator('#source-message').textContent()).toBe('Sync of orders started');
    await expect.poll(() => page.locator('#source-message').textContent(), { timeout: 15_000 }).toBe('orders synced: 3 rows loaded');
  });

  it('replaces the notice that a sync started with its error when the sync fails', async () => {
    const page = await openAs(browser, quarry, 'editor');
    await page.goto(`${quarry.url}/sources/orders`);
    await expect.poll(() => page.locator('#live-state').textContent()).toBe('Live');
    const folder = path.join(quarry.dir, 'data', 'orders');
    renameSync(folder, `${folder}.aside`);
    try {
      await page.getByRole('button', { name: 'Sync now' }).click();
      const notice = page.locator('#source-message');
      await expect.poll(() => notice.textContent(), { timeout: 15_000 }).toMatch(/^The sync of orders failed: ./);
      expect(await notice.getAttribute('class')).toBe('notice error');
      await screenshot(page, 'source-sync-failed');
    } finally {
      renameSync(`${folder}.aside`, folder);
    }
  });

  it('gives a viewer no buttons, fits a phone, and answers an unknown source with the 404 page', async () => {
    const page = await openAs(browser, quarry, 'viewer', 390);
    await page.goto(`${quarry.url}/sources/orders`);
    await expect.poll(() => page.locator('tr[data-file="a.csv"]').count()).toBe(1);
    expect(await page.locator('main button').count()).toBe(0);
    expect(await page.locator('#drop-zone').count()).toBe(0);
    await screenshot(page, 'source-phone-viewer');
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);

    const response = await page.goto(`${quarry.url}/sources/nope`);
    expect(response?.status()).toBe(404);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Source not found');
    await page.goto(`${quarry.url}/no/such/page`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');
    await screenshot(page, 'not-found');
  });
});
