import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TableProfiler } from '../../src/catalog/index.ts';
import { createLogger } from '../../src/logger.ts';
import { screenshot, signIn, startOrdersStage } from '../support/browser.ts';
import { EMAILS, PASSWORDS, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const pageOverflow = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');

describe('the data page in Chromium', () => {
  let quarry: TestQuarry;
  let browser: Browser;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    ({ quarry, browser } = await startOrdersStage());
    await syncAndWait(quarry, 'orders');
  }, 120_000);
  afterAll(async () => {
    await browser.close();
    await quarry.close();
  }, 60_000);

  async function signedInPage(width: number): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width, height: 900 }, acceptDownloads: true })).newPage();
    page.on('console', (message) => { if (message.type() === 'error') consoleErrors.push(message.text()); });
    page.on('pageerror', (error) => { consoleErrors.push(error.message); });
    await signIn(page, quarry.url, EMAILS.viewer, PASSWORDS.viewer);
    await page.waitForURL(`${quarry.url}/`);
    return page;
  }

  it("takes a newcomer from the overview to a synced table's profile and a SQL answer in three clicks", async () => {
    const page = await signedInPage(1280);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Data' }).click();
    await page.getByRole('link', { name: 'raw_orders.orders' }).waitFor();
    await screenshot(page, 'data-list');

    await page.getByRole('link', { name: 'raw_orders.orders' }).click();
    await page.getByRole('heading', { name: 'orders', level: 1 }).waitFor();
    const amount = page.locator('#table-columns tbody tr', { hasText: 'amount' });
    await expect.poll(() => amount.textContent()).toContain('BIGINT');
    expect(await page.locator('#table-facts').textContent()).toContain('3 rows');
    expect(await page.locator('#table-sample tbody tr').count()).toBe(3);
    expect(await page.locator('#table-lineage').textContent()).toContain('Loaded from source orders');

    await page.getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => page.locator('#query-summary').textContent()).toMatch(/^3 rows in \d+ ms$/);
    expect(await page.locator('#query-result thead').textContent()).toContain('amount');
    await screenshot(page, 'data-table');
    expect(consoleErrors).toEqual([]);
  }, 60_000);

  it('runs with Ctrl+Enter, shows a refusal inline, and downloads the result as CSV', async () => {
    const page = await signedInPage(1280);
    await page.goto(`${quarry.url}/data`);
    const editor = page.getByRole('textbox', { name: 'SQL query' });
    await editor.click();
    await page.keyboard.type('SELECT sum(amount) AS total FROM raw_orders.orders');
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => page.locator('#query-result tbody').textContent()).toBe('60');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    expect(readFileSync(await (await download).path(), 'utf8')).toBe('total\n60\n');

    await page.keyboard.press('Control+a');
    await editor.click();
    await page.keyboard.press('Control+a');
    await page.keyboard.type("SELECT * FROM read_text('/etc/passwd')");
    await page.getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => page.locator('#query-message').textContent()).toContain('not allowed');
    expect(await page.locator('#query-message').isVisible()).toBe(true);
    await screenshot(page, 'data-refused');
    // A refused query is a 400 the page reports itself; the browser logs the failed request, nothing else.
    expect(consoleErrors.filter((error) => !error.includes('400'))).toEqual([]);
    consoleErrors.length = 0;
  }, 60_000);

  it('marks an estimated distinct count with its method, and shows a float as people write it', async () => {
    const page = await signedInPage(1280);
    await page.goto(`${quarry.url}/data/raw_orders/orders`);
    const distinct = page.locator('#table-columns tbody tr', { hasText: 'amount' }).locator('td').nth(2);
    await expect.poll(() => distinct.textContent()).toBe('3');
    expect(await distinct.locator('span').getAttribute('title')).toBe('Distinct non-null values, counted');

    // A table past the values the profile may count keeps DuckDB's estimate.
    const estimating = new TableProfiler({
      readers: quarry.ctx.readers, store: quarry.ctx.store, log: createLogger({ level: 'silent' }), now: () => new Date(), exactDistinctValues: 1,
    });
    await estimating.profileNow('raw_orders', 'orders');
    await page.reload();
    await expect.poll(() => distinct.textContent()).toMatch(/^≈ \d+$/);
    expect(await distinct.locator('span').getAttribute('title')).toContain('HyperLogLog estimate (approx_unique)');

    const editor = page.getByRole('textbox', { name: 'SQL query' });
    await editor.click();
    await page.keyboard.press('Control+a');
    await page.keyboard.type('SELECT 0.1::DOUBLE + 0.2::DOUBLE AS total, 19278348.309999935::DOUBLE AS revenue');
    await page.keyboard.press('Control+Enter');
    const cells = page.locator('#query-result tbody td');
    await expect.poll(() => cells.allTextContents()).toEqual(['0.3', '19278348.31']);
    expect(await cells.first().getAttribute('title')).toBe('0.30000000000000004');
    await screenshot(page, 'data-table-estimate');
    expect(consoleErrors).toEqual([]);
  }, 60_000);

  it('searches and fits a phone screen', async () => {
    const page = await signedInPage(375);
    await page.goto(`${quarry.url}/data`);
    await page.getByLabel('Search tables, columns and descriptions').fill('amount');
    await page.getByText('matches its column amount').waitFor();
    expect(await pageOverflow(page)).toBe(0);
    await screenshot(page, 'data-phone');
    await page.goto(`${quarry.url}/data/raw_orders/orders`);
    await page.locator('#table-columns tbody tr').first().waitFor();
    expect(await pageOverflow(page)).toBe(0);
    await screenshot(page, 'data-table-phone');
    expect(consoleErrors).toEqual([]);
  }, 60_000);
});
