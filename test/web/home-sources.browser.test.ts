import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, signIn, startOrdersStage } from '../support/browser.ts';
import { EMAILS, PASSWORDS, type TestQuarry } from '../support/quarry.ts';

describe('overview page in Chromium', () => {
  let quarry: TestQuarry;
  let browser: Browser;
  beforeAll(async () => {
    ({ quarry, browser } = await startOrdersStage());
  });
  afterAll(async () => {
    await browser.close();
    await quarry.close();
  });

  it('syncs a source from its button and shows the new status live', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await signIn(page, quarry.url, EMAILS.editor, PASSWORDS.editor);
    await page.waitForURL(`${quarry.url}/`);
    const row = page.locator('tr[data-source="orders"]');
    await expect.poll(() => row.locator('.status').textContent()).toBe('not synced');
    await page.getByRole('button', { name: 'Sync orders' }).click();
    await expect.poll(() => row.locator('.status').textContent(), { timeout: 15_000 }).toBe('synced');
    expect(await row.locator('td').nth(2).textContent()).toBe('3');
    await expect.poll(() => page.locator('#sources-message').textContent()).toBe('orders synced: 3 rows loaded');
    await expect.poll(() => page.locator('#activity li').first().textContent()).toMatch(/\[orders\] Sync finished: 3 rows/);
    await screenshot(page, 'overview');
  });

  it('shows a viewer no Sync button, and fits a phone screen', async () => {
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await signIn(page, quarry.url, EMAILS.viewer, PASSWORDS.viewer);
    await page.waitForURL(`${quarry.url}/`);
    await expect.poll(() => page.locator('tr[data-source="orders"]').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Sync orders' }).count()).toBe(0);
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBe(0);
    await screenshot(page, 'overview-phone');
  });

  it('keeps every action of the overview within a phone screen for an editor', async () => {
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await signIn(page, quarry.url, EMAILS.editor, PASSWORDS.editor);
    await page.waitForURL(`${quarry.url}/`);
    const sync = page.getByRole('button', { name: 'Sync orders' });
    await expect.poll(() => sync.count()).toBe(1);
    for (const action of [sync, page.getByRole('link', { name: 'Add source' })]) {
      const box = await action.boundingBox();
      expect(box).not.toBeNull();
      expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(390 - 16);
    }
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    await screenshot(page, 'overview-phone-editor');
  });
});
