import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SOURCES_YAML, writeDemoModels } from '../../src/cli/demo-data.ts';
import { projectPaths } from '../../src/config/index.ts';
import { launchBrowser, screenshot } from '../support/browser.ts';
import { EMAILS, PASSWORDS, startQuarry, type TestQuarry } from '../support/quarry.ts';

const MODELS = ['customer_revenue', 'orders_enriched', 'revenue_by_country', 'revenue_by_month', 'stg_orders__orders'];

/** A month of orders in the demo's columns, as someone would export it from their shop. */
const NOVEMBER = `order_id,ordered_at,customer,country,product,quantity,unit_price
2001,2026-11-02 09:15:00,Ada,NL,lamp,1,24.90
2002,2026-11-03 10:15:00,Grace,DE,pen,3,1.20
2003,2026-11-04 11:15:00,Linus,SE,mug,2,8.00
2004,2026-11-05 12:15:00,Ada,NL,notebook,4,4.50
`;

const pageOverflow = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');

describe('a newcomer in Chromium, with the browser alone', () => {
  let quarry: TestQuarry;
  let browser: Browser;
  beforeAll(async () => {
    // The demo's source and models, but no data yet: the newcomer brings it.
    [quarry, browser] = await Promise.all([
      startQuarry({ sourcesYaml: DEMO_SOURCES_YAML, users: [], transform: true, prepare: (dir) => { writeDemoModels(projectPaths(dir)); } }),
      launchBrowser(),
    ]);
    await quarry.ctx.transform.idle();
  });
  afterAll(async () => {
    await browser.close();
    await quarry.close();
  });

  it('signs in by keyboard, uploads a CSV, sees it loaded, runs the models with cascade, and finds Dashboards and Transformation docs', { timeout: 120_000 }, async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const origins = new Set<string>();
    page.on('request', (request) => { if (/^(https?|wss?):/.test(request.url())) origins.add(new URL(request.url()).origin); });

    await page.goto(`${quarry.url}/`);
    await page.waitForURL(/\/login\?next=%2F$/);
    // The email field takes the focus by itself (autofocus); typing before it has, on a busy machine, types into nothing.
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('email');
    await page.keyboard.type(EMAILS.admin);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORDS.admin);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${quarry.url}/`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    expect(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');

    const navigation = page.getByRole('navigation', { name: 'Main' });
    expect(await navigation.getByRole('link', { name: 'Dashboards' }).getAttribute('href')).toBe('/dashboard/');
    expect(await navigation.getByRole('link', { name: 'Transformation docs' }).getAttribute('href')).toBe('/transform-docs/');

    const sourceRow = page.locator('tr[data-source="orders"]');
    await expect.poll(() => sourceRow.locator('.status').textContent()).toBe('not synced');
    await page.getByRole('link', { name: 'orders', exact: true }).click();
    await page.waitForURL(`${quarry.url}/sources/orders`);
    await expect.poll(() => page.locator('#files tbody').textContent()).toBe('No files yet.');
    await page.getByLabel('Choose files').setInputFiles({ name: 'orders_2026-11.csv', mimeType: 'text/csv', buffer: Buffer.from(NOVEMBER) });
    await expect.poll(() => page.locator('#source-status .status').textContent(), { timeout: 30_000 }).toBe('synced');
    // The upload's notice ends with how its sync went, not with "sync started".
    await expect.poll(() => page.locator('#source-message').textContent()).toBe('Uploaded orders_2026-11.csv; orders synced: 4 rows loaded');
    await expect.poll(() => page.locator('#source-rows').textContent()).toBe('4');
    const file = page.locator('tr[data-file="orders_2026-11.csv"] td');
    await expect.poll(() => file.nth(2).textContent()).toBe('success');
    expect(await file.nth(3).textContent()).toBe('4');
    await expect.poll(() => page.locator('#tables tbody tr').allTextContents()).toEqual(['raw_orders.orders4']);
    expect(await page.locator('#upload-progress').isHidden()).toBe(true);
    await screenshot(page, 'newcomer-source');

    await navigation.getByRole('link', { name: 'Models' }).click();
    await page.waitForURL(`${quarry.url}/models`);
    await expect.poll(() => page.locator('#models tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-model')).sort())).toEqual(MODELS);
    expect(await page.locator('#lineage .node').count()).toBe(5);
    // The sync builds the staging view by itself; the page shows it finish.
    await expect.poll(() => page.locator('tr[data-model="stg_orders__orders"] .status:not([data-tests])').textContent(), { timeout: 60_000 }).toBe('success');
    expect(await page.locator('tr[data-model="orders_enriched"] .status:not([data-tests])').textContent()).toBe('not run');
    await page.getByRole('button', { name: 'Run stg_orders__orders and downstream models' }).click();
    const statuses = () => page.locator('#models tbody tr .status:not([data-tests])').allTextContents();
    await expect.poll(statuses, { timeout: 90_000 }).toEqual(MODELS.map(() => 'success'));
    await expect.poll(() => page.locator('#models-message').textContent()).toMatch(/^Ran stg_orders__orders and \d+ downstream models?: all \d+ succeeded$/);
    expect(await quarry.query('SELECT sum(orders)::INTEGER AS orders, sum(revenue) AS revenue FROM marts.revenue_by_month')).toEqual([{ orders: 4, revenue: 62.5 }]);
    await screenshot(page, 'newcomer-models');

    expect([...origins]).toEqual([quarry.url]);

    await page.setViewportSize({ width: 390, height: 844 });
    for (const pagePath of ['/', '/sources/orders', '/models']) {
      await page.goto(`${quarry.url}${pagePath}`);
      await expect.poll(() => page.locator('#live-state').textContent()).toBe('Live');
      await expect.poll(() => page.locator('main tbody .status').count()).toBeGreaterThan(0);
      expect(await pageOverflow(page), pagePath).toBe(0);
    }
    await screenshot(page, 'models-phone-editor');
  });
});
