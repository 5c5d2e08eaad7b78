import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, signIn } from '../support/browser.ts';
import { EMAILS, PASSWORDS, startQuarry, type TestQuarry } from '../support/quarry.ts';
import { TestClock } from '../support/test-clock.ts';

describe('the overview\'s Schedules section in Chromium', () => {
  let quarry: TestQuarry;
  let browser: Browser;
  beforeAll(async () => {
    [quarry, browser] = await Promise.all([
      startQuarry({
        sourcesYaml: 'sources:\n  - name: orders\n    type: local_files\n    local_files: { directory: data/orders }\n',
        projectConfig: {
          schedules: [
            { name: 'nightly', cron: '0 3 * * *', timezone: 'UTC', sync: ['orders'] },
            { name: 'weekly', cron: '0 6 * * 1', timezone: 'Europe/Paris', sync: 'all', enabled: false },
          ],
        },
        clock: new TestClock(Date.UTC(2026, 5, 1, 10, 0, 0)),
      }),
      launchBrowser(),
    ]);
    mkdirSync(path.join(quarry.dir, 'data', 'orders'), { recursive: true });
    writeFileSync(path.join(quarry.dir, 'data', 'orders', 'a.csv'), 'id,amount\n1,10\n2,20\n3,30\n');
  });
  afterAll(async () => {
    await browser.close();
    await quarry.close();
  });

  it('shows next and last runs, and runs a schedule now for an editor, live', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'UTC', locale: 'en-GB' })).newPage();
    await signIn(page, quarry.url, EMAILS.editor, PASSWORDS.editor);
    await page.waitForURL(`${quarry.url}/`);
    const nightly = page.locator('tr[data-schedule="nightly"]');
    await expect.poll(() => nightly.locator('td').nth(3).textContent()).toBe('never run');
    expect(await nightly.locator('td').nth(1).textContent()).toBe('02/06/2026, 03:00:00');
    expect(await page.locator('tr[data-schedule="weekly"] td').nth(1).textContent()).toBe('disabled');
    await page.getByRole('button', { name: 'Run nightly now' }).click();
    await expect.poll(() => nightly.locator('.status').textContent(), { timeout: 15_000 }).toBe('success');
    expect(await nightly.locator('td').nth(2).textContent()).toBe('01/06/2026, 10:00:00');
    await expect.poll(() => page.locator('#activity li').first().textContent()).toMatch(/Schedule nightly finished/);
    await screenshot(page, 'overview-schedules');
  });

  it('shows a viewer the schedules without Run now', async () => {
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await signIn(page, quarry.url, EMAILS.viewer, PASSWORDS.viewer);
    await page.waitForURL(`${quarry.url}/`);
    await expect.poll(() => page.locator('tr[data-schedule]').count()).toBe(2);
    expect(await page.getByRole('button', { name: 'Run nightly now' }).count()).toBe(0);
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBe(0);
  });
});
