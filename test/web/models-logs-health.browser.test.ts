import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, signIn } from '../support/browser.ts';
import { EMAILS, PASSWORDS, startQuarry, type TestQuarry } from '../support/quarry.ts';
import type { Role } from '../../src/store/index.ts';

const SOURCES = 'sources:\n  - name: shop\n    type: local_files\n    local_files: { directory: data/shop }\n';

/** a_base → b_middle → c_top, and a_base → d_broken, whose SQL fails; e_dupes fails its unique test. */
const MARTS: Record<string, string> = {
  'e_dupes.sql': 'select 1 as id union all select 1 union all select 2',
  '_marts.yml': 'version: 2\nmodels:\n  - name: e_dupes\n    columns:\n      - name: id\n        data_tests: [unique]\n',
  'a_base.sql': "select 1 as id, 'x' as label",
  'b_middle.sql': "select id, label from {{ ref('a_base') }}",
  'c_top.sql': "select count(*) as n from {{ ref('b_middle') }}",
  'd_broken.sql': "select no_such_column from {{ ref('a_base') }}",
};

function writeProject(dir: string): void {
  const marts = path.join(dir, 'transform', 'models', 'marts');
  mkdirSync(marts, { recursive: true });
  for (const [name, sql] of Object.entries(MARTS)) writeFileSync(path.join(marts, name), sql);
  mkdirSync(path.join(dir, 'data', 'shop'), { recursive: true });
  writeFileSync(path.join(dir, 'data', 'shop', 'jan.csv'), 'id,amount\n1,10\n2,20\n');
}

describe('models, logs and health pages in Chromium', () => {
  let quarry: TestQuarry;
  let browser: Browser;
  beforeAll(async () => {
    [quarry, browser] = await Promise.all([startQuarry({ sourcesYaml: SOURCES, transform: true, prepare: writeProject }), launchBrowser()]);
    await quarry.ctx.transform.idle();
  });
  afterAll(async () => {
    await browser.close();
    await quarry.close();
  });

  async function openAs(role: Role, pagePath: string, options: BrowserContextOptions = {}): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options })).newPage();
    await signIn(page, quarry.url, EMAILS[role], PASSWORDS[role]);
    await page.waitForURL(`${quarry.url}/`);
    await page.goto(`${quarry.url}${pagePath}`);
    return page;
  }
  const statusOf = (page: Page, model: string) => page.locator(`tr[data-model="${model}"] .status:not([data-tests])`).textContent();

  it('runs a model with cascade, shows statuses and the error live, and highlights a lineage', async () => {
    const page = await openAs('editor', '/models');
    await expect.poll(() => page.locator('#models tbody tr').count(), { timeout: 15_000 }).toBe(5);
    expect(await page.locator('#lineage .node').count()).toBe(5);
    expect(await page.locator('#lineage .edges path').count()).toBe(3);

    await page.getByRole('button', { name: 'Run a_base and downstream models' }).click();
    await expect.poll(() => statusOf(page, 'd_broken'), { timeout: 60_000 }).toBe('error');
    await expect.poll(() => statusOf(page, 'c_top'), { timeout: 60_000 }).toBe('success');
    expect(await statusOf(page, 'a_base')).toBe('success');
    await expect.poll(() => page.locator('tr[data-model="d_broken"] .model-error').textContent()).toMatch(/no_such_column/);
    // "Run started" gives way to the outcome once every model of the run has reported.
    await expect.poll(() => page.locator('#models-message').textContent())
      .toMatch(/^Ran a_base and 3 downstream models: 3 succeeded, 1 failed \(d_broken: .*no_such_column.*\)$/);
    expect(await page.locator('#models-message').getAttribute('class')).toBe('notice error');
    expect(await page.locator('#lineage .node[data-model="d_broken"]').getAttribute('class')).toContain('status-error');

    await page.locator('#lineage .node[data-model="c_top"]').click();
    const dimmed = () => page.locator('#lineage .node.dimmed').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-model')));
    await expect.poll(dimmed).toEqual(['d_broken', 'e_dupes']);
    // A redraw by a late live event keeps the highlight.
    await page.locator('#lineage svg').evaluate((graph) => { graph.setAttribute('data-drawn-before', ''); });
    quarry.ctx.events.publish({ type: 'transform_run_completed', model: 'c_top' });
    await expect.poll(() => page.locator('#lineage svg[data-drawn-before]').count()).toBe(0);
    expect(await dimmed()).toEqual(['d_broken', 'e_dupes']);
    await screenshot(page, 'models');

    await page.getByRole('button', { name: 'Run only c_top' }).click();
    await expect.poll(() => page.locator('#models-message').textContent(), { timeout: 60_000 }).toBe('c_top ran successfully');
    expect(await page.locator('#models-message').getAttribute('class')).toBe('notice ok');
  });

  it('shows a failing test as a badge with its failing rows, and filters the models with failing tests', async () => {
    const page = await openAs('editor', '/models');
    await expect.poll(() => page.locator('#models tbody tr').count(), { timeout: 15_000 }).toBe(5);
    await page.getByRole('button', { name: 'Run only e_dupes' }).click();
    const badge = page.locator('tr[data-model="e_dupes"] [data-tests]');
    await expect.poll(() => badge.textContent(), { timeout: 60_000 }).toBe('1 failing');
    expect(await statusOf(page, 'e_dupes')).toBe('success');
    const failing = page.locator('tr[data-model="e_dupes"] details[data-test="unique_e_dupes_id"]');
    expect(await failing.locator('summary').textContent()).toBe('Failed: unique_e_dupes_id (1 failing row)');
    await failing.locator('summary').click();
    expect(await failing.locator('.failing-rows th').allTextContents()).toEqual(['unique_field', 'n_records']);
    expect(await failing.locator('.failing-rows tbody td').allTextContents()).toEqual(['1', '2']);
    await screenshot(page, 'models-failing-test');

    await page.getByLabel('Only models with failing tests').check();
    // The model rows only (a failing test's rows are a table of their own inside its model's row).
    await expect.poll(() => page.locator('#models > tbody > tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-model'))))
      .toEqual(['e_dupes']);
  });

  it('filters logs by level and source and tails new lines live', async () => {
    const page = await openAs('viewer', '/logs');
    await page.getByLabel('Source').selectOption('shop');
    const ended = quarry.nextEvent('sync_completed');
    expect((await quarry.request('POST', '/api/sources/shop/sync', { as: 'editor' })).status).toBe(200);
    await ended;
    await expect.poll(() => page.locator('#log-lines li').first().textContent()).toMatch(/SUCCESS\s*Sync finished: 2 rows/);
    await page.getByLabel('Level').selectOption('SUCCESS');
    await expect.poll(() => page.locator('#log-lines li .level').allTextContents()).toEqual(['SUCCESS']);
    await page.getByLabel('Source').selectOption('');
    await page.getByLabel('Level').selectOption('');
    await expect.poll(() => page.locator('#log-lines li').count()).toBeGreaterThan(3);
    await screenshot(page, 'logs');
  });

  it('lists a source under failed syncs only while its latest sync failed', async () => {
    const syncShop = async (): Promise<void> => {
      const ended = Promise.race([quarry.nextEvent('sync_completed', (event) => event.source === 'shop'), quarry.nextEvent('sync_failed', (event) => event.source === 'shop')]);
      expect((await quarry.request('POST', '/api/sources/shop/sync', { as: 'editor' })).status).toBe(200);
      await ended;
    };
    const folder = path.join(quarry.dir, 'data', 'shop');
    await syncShop();
    renameSync(path.join(folder, 'jan.csv'), path.join(quarry.dir, 'jan.csv'));
    await syncShop();
    const page = await openAs('viewer', '/health');
    const failures = page.locator('#sync-failures li');
    await expect.poll(() => failures.allTextContents(), { timeout: 15_000 }).toEqual([expect.stringMatching(/shop: .*refusing to replace/)]);
    await screenshot(page, 'health-sync-failed');

    renameSync(path.join(quarry.dir, 'jan.csv'), path.join(folder, 'jan.csv'));
    writeFileSync(path.join(folder, 'feb.csv'), 'id,amount\n3,30\n');
    await syncShop();
    await expect.poll(() => failures.allTextContents(), { timeout: 15_000 }).toEqual(['None.']);
  });

  it('shows health problems first, services and the watcher; follows the dark system setting; a viewer gets no Run buttons; fits a phone', async () => {
    const page = await openAs('viewer', '/health', { colorScheme: 'dark' });
    await expect.poll(() => page.locator('#run-failures li').allTextContents(), { timeout: 15_000 }).toContainEqual(expect.stringMatching(/d_broken: .*no_such_column/));
    expect(await page.locator('#run-failures li').allTextContents()).toContainEqual(expect.stringMatching(/e_dupes: The test unique_e_dupes_id failed: 1 failing row$/));
    expect(await page.locator('#watcher dd').first().textContent()).toBe('not running');
    expect(await page.locator('#services dd').first().textContent()).toBe(quarry.ctx.version);
    const background = await page.evaluate('getComputedStyle(document.body).backgroundColor');
    expect(background).toBe('rgb(21, 25, 30)');
    await screenshot(page, 'health-dark');

    await page.goto(`${quarry.url}/models`);
    await expect.poll(() => page.locator('tr[data-model="d_broken"]').count()).toBe(1);
    expect(await page.locator('#models button', { hasText: /^Run/ }).count()).toBe(0);
    await screenshot(page, 'models-dark-viewer');

    await page.setViewportSize({ width: 390, height: 844 });
    for (const pagePath of ['/models', '/logs', '/health']) {
      await page.goto(`${quarry.url}${pagePath}`);
      await expect.poll(() => page.locator('#live-state').textContent()).toBe('Live');
      expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'), pagePath).toBe(0);
    }
    await expect.poll(() => page.locator('#watcher dd').count()).toBeGreaterThan(0);
    await screenshot(page, 'health-phone-dark');

    await page.goto(`${quarry.url}/models`);
    await expect.poll(() => page.locator('#lineage svg').count()).toBe(1);
    expect(await page.evaluate("(() => { const graph = document.getElementById('lineage'); return graph.scrollWidth > graph.clientWidth; })()")).toBe(true);
    await expect.poll(() => page.locator('#lineage-scroll-hint').isVisible()).toBe(true);
    await screenshot(page, 'models-phone-dark');
  });
});
