import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchBrowser, screenshot, signIn } from '../support/browser.ts';
import { EMAILS, PASSWORDS, startQuarry, type TestQuarry } from '../support/quarry.ts';

/** What a person sees on one page: the console's errors and every request that left Quarry's origin. */
interface Visit {
  readonly consoleErrors: string[];
  readonly foreignRequests: string[];
}

/**
 * Every page Quarry serves or proxies, opened in Chromium as a signed-in admin on the demo project:
 * each shows its content, logs no console error and asks no other origin for anything.
 */
describe('every page in Chromium, as a person sees it', () => {
  let quarry: TestQuarry;
  let browser: Browser;
  let page: Page;
  let visit: Visit = { consoleErrors: [], foreignRequests: [] };

  beforeAll(async () => {
    [quarry, browser] = await Promise.all([
      startQuarry({ demo: true, transform: true, docsServer: true, dashboard: true }),
      launchBrowser(),
    ]);
    const modelsBuilt = quarry.nextEvent('transform_run_completed', (event) => event.model === 'revenue_by_month');
    expect((await quarry.request('POST', '/api/sources/orders/sync', { as: 'admin' })).status).toBe(200);
    await modelsBuilt;
    // The docs catalog and the dashboard follow the run on their own: wait for both, as a person would.
    await vi.waitFor(async () => {
      const catalog = await quarry.request('GET', '/transform-docs/catalog.json', { as: 'admin' });
      expect(catalog.text).toContain('model.quarry.orders_enriched');
      const landing = await quarry.request('GET', '/dashboard/', { as: 'admin', headers: { accept: 'text/html' } });
      expect(landing.headers.get('location')).toBe('/dashboard/superset/dashboard/sales/');
    }, { timeout: 180_000, interval: 1000 });

    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on('console', (message) => { if (message.type() === 'error') visit.consoleErrors.push(message.text()); });
    page.on('pageerror', (error) => { visit.consoleErrors.push(error.message); });
    page.on('request', (request) => {
      const url = request.url();
      if (/^(https?|wss?):/.test(url) && new URL(url).origin !== quarry.url) visit.foreignRequests.push(url);
    });
  }, 400_000);
  afterAll(async () => {
    await browser.close();
    await quarry.close();
  }, 60_000);

  /** Opens the path, waits for what a person would look for, and takes the page's picture. */
  async function open(pagePath: string, shows: (page: Page) => Promise<void>, name: string): Promise<Visit> {
    visit = { consoleErrors: [], foreignRequests: [] };
    await page.goto(`${quarry.url}${pagePath}`);
    await shows(page);
    await page.waitForLoadState('networkidle');
    await screenshot(page, name);
    return visit;
  }

  const heading = (text: string) => async (shown: Page): Promise<void> => {
    await expect.poll(() => shown.getByRole('heading', { name: text }).count(), { timeout: 30_000 }).toBeGreaterThan(0);
  };
  const text = (content: string) => async (shown: Page): Promise<void> => {
    await expect.poll(() => shown.getByText(content, { exact: true }).count(), { timeout: 60_000 }).toBeGreaterThan(0);
  };

  it('the login page shows its form, and signs the admin in', async () => {
    expect(await open('/login', heading('Sign in to Test project'), 'page-login')).toEqual({ consoleErrors: [], foreignRequests: [] });
    await signIn(page, quarry.url, EMAILS.admin, PASSWORDS.admin);
    await page.waitForURL(`${quarry.url}/`);
  });

  const QUARRY_PAGES: [path: string, shows: (page: Page) => Promise<void>, name: string][] = [
    ['/', text('orders'), 'page-overview'],
    ['/sources/orders', text('raw_orders.orders'), 'page-source'],
    ['/models', text('revenue_by_month'), 'page-models'],
    ['/data', text('marts.revenue_by_month'), 'page-data'],
    ['/data/marts/revenue_by_month', async (shown) => {
      await expect.poll(() => shown.locator('#table-lineage').textContent(), { timeout: 30_000 }).toContain('Built by model revenue_by_month');
    }, 'page-data-table'],
    ['/logs', heading('Logs'), 'page-logs'],
    ['/health', heading('Health'), 'page-health'],
    ['/settings/account', heading('Your account'), 'page-account'],
    ['/admin/users', text(EMAILS.viewer), 'page-users'],
  ];

  it.each(QUARRY_PAGES)('%s shows its content with no console error and nothing from another origin', async (pagePath, shows, name) => {
    expect(await open(pagePath, shows, name)).toEqual({ consoleErrors: [], foreignRequests: [] });
  });

  it('an unknown path shows the not-found page, whose only console line is the browser noting its 404', async () => {
    expect(await open('/no-such-page', heading('Page not found'), 'page-not-found')).toEqual({
      consoleErrors: ['Failed to load resource: the server responded with a status of 404 (Not Found)'], foreignRequests: [],
    });
  });

  it('the transformation docs render dbt\'s site: a model with its columns, and the demo\'s lineage', async () => {
    const seen = await open('/transform-docs/#!/model/model.quarry.orders_enriched', async (shown) => {
      await text('Every order with its month and revenue (quantity times unit price)')(shown);
      await expect.poll(() => shown.locator('.column-row', { hasText: 'unit_price' }).count(), { timeout: 30_000 }).toBeGreaterThan(0);
    }, 'transform-docs-model');
    await page.getByTitle('View Lineage Graph').click();
    await expect.poll(() => page.locator('#cy canvas').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await page.waitForLoadState('networkidle');
    await screenshot(page, 'transform-docs-lineage');
    expect(seen).toEqual({ consoleErrors: [], foreignRequests: [] });
  }, 120_000);

  it('the dashboard link lands on the demo dashboard with its figures', async () => {
    const seen = await open('/dashboard/', async (shown) => {
      await shown.waitForURL(/\/dashboard\/superset\/dashboard\/sales\//);
      await text('Demo shop sales')(shown);
      await text('240')(shown);
      await expect.poll(() => shown.locator('canvas, svg.echarts, [data-test="chart-container"] svg').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    }, 'page-dashboard');
    expect(seen).toEqual({ consoleErrors: [], foreignRequests: [] });
  }, 120_000);

  it('the API reference renders in Swagger UI and in Redoc', async () => {
    expect(await open('/api/docs', text('/api/status'), 'page-api-docs')).toEqual({ consoleErrors: [], foreignRequests: [] });
    expect(await open('/api/redoc', heading('Quarry API (0.1.0)'), 'page-api-redoc')).toEqual({ consoleErrors: [], foreignRequests: [] });
  }, 60_000);
});
