import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchBrowser, screenshot, signIn } from '../support/browser.ts';
import { layoutProblems } from '../support/layout-check.ts';
import { EMAILS, PASSWORDS, startQuarry, type TestQuarry } from '../support/quarry.ts';

/** What a person sees on one page: the console's errors and every request that left Quarry's origin. */
interface Visit {
  readonly consoleErrors: string[];
  readonly foreignRequests: string[];
}

/** A column name no phone fits on a line, as an identifier or a path in an error may be. */
const LONG_COLUMN = 'revenue_in_euros_after_discounts_taxes_and_shipping_fees_per_order_line';

/**
 * Two marts beside the demo's, for the pages' states with trouble in them: one whose unique test fails (with
 * failing rows) beside a test that passes, and one whose run fails with an error naming LONG_COLUMN.
 */
function addTroubledModels(dir: string): void {
  const marts = path.join(dir, 'transform', 'models', 'marts');
  writeFileSync(path.join(marts, 'products_sold.sql'), "select product from {{ ref('orders_enriched') }}\n");
  writeFileSync(path.join(marts, '_products_sold.yml'),
    'version: 2\nmodels:\n  - name: products_sold\n    columns:\n      - name: product\n        data_tests: [unique, not_null]\n');
  writeFileSync(path.join(marts, 'broken_totals.sql'), `select ${LONG_COLUMN} from {{ ref('orders_enriched') }}\n`);
}

/**
 * Every page Quarry serves or proxies, opened in Chromium as a signed-in admin on the demo project (with a
 * failing test and a failed model added): each shows its content, logs no console error and asks no other
 * origin for anything; Quarry's own pages fit a 1280 px screen and a 390 px phone.
 */
describe('every page in Chromium, as a person sees it', () => {
  let quarry: TestQuarry;
  let browser: Browser;
  let page: Page;
  /** The same session on a phone's screen. */
  let phone: Page;
  let visit: Visit = { consoleErrors: [], foreignRequests: [] };

  beforeAll(async () => {
    [quarry, browser] = await Promise.all([
      startQuarry({ demo: true, transform: true, docsServer: true, dashboard: true, prepare: addTroubledModels }),
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

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    [page, phone] = await Promise.all([context.newPage(), context.newPage()]);
    await phone.setViewportSize({ width: 390, height: 844 });
    for (const watched of [page, phone]) {
      watched.on('console', (message) => { if (message.type() === 'error') visit.consoleErrors.push(message.text()); });
      watched.on('pageerror', (error) => { visit.consoleErrors.push(error.message); });
      watched.on('request', (request) => {
        const url = request.url();
        if (/^(https?|wss?):/.test(url) && new URL(url).origin !== quarry.url) visit.foreignRequests.push(url);
      });
    }
  }, 400_000);
  afterAll(async () => {
    await browser.close();
    await quarry.close();
  }, 60_000);

  /** Opens the path (on the 1280 px screen unless told), waits for what a person would look for, and takes the page's picture. */
  async function open(pagePath: string, shows: (page: Page) => Promise<void>, name: string, on: Page = page): Promise<Visit> {
    visit = { consoleErrors: [], foreignRequests: [] };
    await on.goto(`${quarry.url}${pagePath}`);
    await shows(on);
    await on.waitForLoadState('networkidle');
    await screenshot(on, name);
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

  const overviewWithLongError = async (shown: Page): Promise<void> => {
    await text('orders')(shown);
    await expect.poll(() => shown.locator('#activity').textContent(), { timeout: 30_000 }).toContain(LONG_COLUMN);
  };

  const QUARRY_PAGES: [path: string, shows: (page: Page) => Promise<void>, name: string][] = [
    ['/', overviewWithLongError, 'page-overview'],
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

  it.each(QUARRY_PAGES)('%s shows its content with no console error and nothing from another origin, and fits 1280 px', async (pagePath, shows, name) => {
    expect(await open(pagePath, shows, name)).toEqual({ consoleErrors: [], foreignRequests: [] });
    expect(await layoutProblems(page)).toEqual([]);
  });

  it.each(QUARRY_PAGES)('%s fits a 390 px phone: no sideways scroll, no button cut off', async (pagePath, shows, name) => {
    expect(await open(pagePath, shows, `${name}-phone`, phone)).toEqual({ consoleErrors: [], foreignRequests: [] });
    expect(await layoutProblems(phone)).toEqual([]);
  });

  it('the models page with a failing test opened keeps the Run buttons whole and the test badge on one line, at 1280 and 390 px', async () => {
    for (const [shown, name] of [[page, 'page-models-failing-test'], [phone, 'page-models-failing-test-phone']] as const) {
      await shown.goto(`${quarry.url}/models`);
      const row = shown.locator('tr[data-model="products_sold"]');
      await expect.poll(() => row.locator('[data-tests]').textContent(), { timeout: 30_000 }).toMatch(/failing/);
      await row.locator('details.test-fail summary').click();
      await expect.poll(() => row.locator('.failing-rows tbody tr').count()).toBeGreaterThan(0);
      // The status badge beside it holds one word: a test badge as tall has not wrapped.
      const [statusBadge, testBadge] = await Promise.all([row.locator('.status:not([data-tests])').boundingBox(), row.locator('[data-tests]').boundingBox()]);
      expect(testBadge?.height).toBe(statusBadge?.height);
      expect(await layoutProblems(shown)).toEqual([]);
      await screenshot(shown, name);
    }
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

  it('the transformation docs lead back to Quarry\'s home', async () => {
    await page.goto(`${quarry.url}/transform-docs/`);
    await page.getByRole('link', { name: 'Back to Quarry' }).click();
    await page.waitForURL(`${quarry.url}/`);
  });

  it('the dashboard link lands on the demo dashboard with its figures', async () => {
    const seen = await open('/dashboard/', async (shown) => {
      await shown.waitForURL(/\/dashboard\/superset\/dashboard\/sales\//);
      await text('Demo shop sales')(shown);
      await text('240')(shown);
      await expect.poll(() => shown.locator('canvas, svg.echarts, [data-test="chart-container"] svg').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    }, 'page-dashboard');
    expect(seen).toEqual({ consoleErrors: [], foreignRequests: [] });
  }, 120_000);

  it('SQL Lab runs a query and numbers its rows with no content security policy error; the dashboard logo leads to Quarry\'s home', async () => {
    const sql = 'select * from marts.revenue_by_month';
    const rows = await quarry.query(sql);
    const seen = await open('/dashboard/sqllab/', async (shown) => {
      await shown.getByText('Add a new tab', { exact: true }).click();
      await shown.locator('.ace_content').click();
      await shown.keyboard.press('ControlOrMeta+A');
      await shown.keyboard.type(sql);
      await shown.keyboard.press('ControlOrMeta+Enter');
      // The row numbers sit in a pinned column of their own; each row's values are in the centre.
      await expect.poll(() => shown.locator('.ag-center-cols-container .ag-row').count(), { timeout: 30_000 }).toBe(rows.length);
      await expect.poll(() => shown.locator('.row-number-col').allTextContents()).toEqual(rows.map((_row, index) => String(index + 1)));
      // The grid lays itself out hidden first: the column names are seen once it shows.
      await expect.poll(() => shown.locator('.ag-header-cell-text').filter({ visible: true }).allTextContents()).toEqual(Object.keys(rows[0] ?? {}));
    }, 'page-dashboard-sqllab');
    // Only the policy's errors: the grid also logs AG Grid's error #200 for modules Superset 6.1 does not register, whatever the policy.
    expect(seen.consoleErrors.filter((line) => /content.security.policy/i.test(line))).toEqual([]);
    expect(seen.foreignRequests).toEqual([]);

    await page.locator('#main-menu a:has(img)').first().click();
    await page.waitForURL(`${quarry.url}/`);
  }, 120_000);

  it('the API reference renders in Swagger UI and in Redoc', async () => {
    expect(await open('/api/docs', text('/api/status'), 'page-api-docs')).toEqual({ consoleErrors: [], foreignRequests: [] });
    expect(await open('/api/redoc', heading('Quarry API (0.1.0)'), 'page-api-redoc')).toEqual({ consoleErrors: [], foreignRequests: [] });
  }, 60_000);
});
