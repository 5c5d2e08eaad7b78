import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCE_TYPES } from '../../src/sources/config/index.ts';
import { startItemsApi } from '../fakes/items-api.ts';
import { launchBrowser, screenshot, signIn } from '../support/browser.ts';
import { records, type FakeApi } from '../support/fake-api.ts';
import { EMAILS, PASSWORDS, startQuarry, type TestQuarry } from '../support/quarry.ts';

describe('adding a source in the browser', () => {
  let quarry: TestQuarry;
  let browser: Browser;
  let api: FakeApi;
  beforeAll(async () => {
    [quarry, browser, api] = await Promise.all([
      startQuarry({ users: ['admin', 'editor', 'viewer'] }), launchBrowser(),
      startItemsApi(records(30, (n) => ({ id: n, name: `item ${String(n)}` })), { token: 'browser-items-token' }),
    ]);
  });
  afterAll(async () => {
    await browser.close();
    await quarry.close();
    await api.close();
  });

  /** Opens the form from the overview's Add source button, as the editor, collecting the console's errors. */
  async function openForm(width: number): Promise<{ page: Page; consoleErrors: string[] }> {
    const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
    const consoleErrors: string[] = [];
    page.on('console', (message) => { if (message.type() === 'error') consoleErrors.push(message.text()); });
    page.on('pageerror', (error) => { consoleErrors.push(error.message); });
    await signIn(page, quarry.url, EMAILS.editor, PASSWORDS.editor);
    await page.waitForURL(`${quarry.url}/`);
    await page.getByRole('link', { name: 'Add source' }).click();
    await page.waitForURL(`${quarry.url}/sources/new`);
    return { page, consoleErrors };
  }

  /** Fills the form for a rest_api source reading the fake's items with its token. */
  async function fillRestApi(page: Page, name: string): Promise<void> {
    await page.getByLabel('Category').selectOption(SOURCE_TYPES.rest_api.category);
    await page.getByLabel('Type', { exact: true }).selectOption('rest_api');
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.locator('#field-base_url').fill(`${api.url}/v1`);
    await page.locator('#field-auth_token_env').fill(`${name.toUpperCase()}_TOKEN`);
    await page.locator('#field-auth_token_env-value').fill('browser-items-token');
    await page.locator('#field-endpoints-path').fill('/items');
    await page.locator('#field-endpoints-data_selector').fill('data');
    await page.locator('#field-endpoints-primary_key').fill('id');
  }

  for (const [width, name] of [[1280, 'items'], [390, 'items_phone']] as const) {
    it(`adds a rest_api source through the form, tests it, syncs it with visible progress and sees its rows at ${String(width)} px, with no console error`, async () => {
      const { page, consoleErrors } = await openForm(width);
      await expect.poll(() => page.locator('#not-addable li').count()).toBeGreaterThan(0);
      await fillRestApi(page, name);
      await page.locator('#field-auth_token_env-value').fill('not-the-token');
      await page.getByRole('button', { name: 'Test connection' }).click();
      await expect.poll(() => page.locator('#test-result').textContent(), { timeout: 30_000 }).toContain('Connection test failed');
      expect(await page.locator('#test-result').textContent()).not.toContain('not-the-token');
      await page.locator('#field-auth_token_env-value').fill('browser-items-token');
      await page.getByRole('button', { name: 'Test connection' }).click();
      await expect.poll(() => page.locator('#test-result').textContent(), { timeout: 30_000 }).toBe('Connection test passed: Connected and read the first records');
      await screenshot(page, width === 390 ? 'add-source-tested-phone' : 'add-source-tested');
      expect(readFileSync(path.join(quarry.dir, '.quarry', 'sources.yml'), 'utf8')).not.toContain(`- name: ${name}`);
      await page.getByRole('button', { name: 'Save source' }).click();
      await expect.poll(() => page.locator('#add-source-message').textContent()).toContain(`Added the rest_api source "${name}"`);
      expect(await page.locator('#field-auth_token_env-value').inputValue()).toBe('');
      await page.getByRole('button', { name: 'Sync now' }).click();
      await expect.poll(() => page.locator('#sync-result').textContent(), { timeout: 60_000 }).toBe('Synced: 30 rows loaded');
      expect(await page.locator('#sync-progress').textContent()).toBe('Reading: 30 rows in 1 page(s)');
      await screenshot(page, width === 390 ? 'add-source-phone' : 'add-source');
      await page.getByRole('link', { name: 'Go to the source' }).click();
      await expect.poll(() => page.locator('#source-rows').textContent()).toBe('30');
      const sourcesYml = readFileSync(path.join(quarry.dir, '.quarry', 'sources.yml'), 'utf8');
      expect(sourcesYml).toContain(`- name: ${name}`);
      expect(sourcesYml).not.toContain('browser-items-token');
      expect(readFileSync(path.join(quarry.dir, '.env'), 'utf8')).toContain(`${name.toUpperCase()}_TOKEN='browser-items-token'`);
      expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
      expect(consoleErrors).toEqual([]);
    }, 90_000);
  }

  it('disables and enables the added source from its page', async () => {
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await signIn(page, quarry.url, EMAILS.editor, PASSWORDS.editor);
    await page.waitForURL(`${quarry.url}/`);
    await page.goto(`${quarry.url}/sources/items`);
    await page.getByRole('button', { name: 'Disable' }).click();
    await expect.poll(() => page.locator('#source-status').textContent()).toBe('disabled');
    expect(await page.getByRole('button', { name: 'Sync now' }).count()).toBe(0);
    expect(readFileSync(path.join(quarry.dir, '.quarry', 'sources.yml'), 'utf8')).toContain('enabled: false');
    await screenshot(page, 'source-disabled-phone');
    await page.getByRole('button', { name: 'Enable' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Sync now' }).count()).toBe(1);
    await expect.poll(() => page.locator('#source-status').textContent()).toBe('synced');
  }, 60_000);

  for (const [width, name] of [[1280, 'items'], [390, 'items_phone']] as const) {
    it(`edits ${name}'s settings in the same form at ${String(width)} px: help beside each field, only the chosen auth type's fields, the credential shown as set, the change on its page`, async () => {
      const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
      const consoleErrors: string[] = [];
      page.on('console', (message) => { if (message.type() === 'error') consoleErrors.push(message.text()); });
      page.on('pageerror', (error) => { consoleErrors.push(error.message); });
      await signIn(page, quarry.url, EMAILS.editor, PASSWORDS.editor);
      await page.waitForURL(`${quarry.url}/`);
      await page.goto(`${quarry.url}/sources/${name}`);
      await page.getByRole('link', { name: 'Edit', exact: true }).click();
      await page.waitForURL(`${quarry.url}/sources/${name}/edit`);
      await expect.poll(() => page.locator('#field-base_url').inputValue()).toBe(`${api.url}/v1`);
      expect(await page.locator('#source-name').inputValue()).toBe(name);
      expect(await page.locator('#field-endpoints-primary_key').inputValue()).toBe('id');
      expect(await page.locator('#field-auth_token_env-value').getAttribute('placeholder')).toBe('set');
      expect(await page.locator('#field-base_url-help').textContent()).toBe('The API root every endpoint path is relative to.');
      expect(await page.locator('#field-basic_username_env').isVisible()).toBe(false);
      await page.getByLabel('auth type', { exact: true }).selectOption('basic');
      expect(await page.locator('#field-basic_username_env').isVisible()).toBe(true);
      expect(await page.locator('#field-auth_token_env').isVisible()).toBe(false);
      await page.getByLabel('auth type', { exact: true }).selectOption('bearer');
      await page.locator('#field-timeout_seconds').fill('45');
      await page.getByRole('button', { name: 'Test connection' }).click();
      await expect.poll(() => page.locator('#test-result').textContent(), { timeout: 30_000 }).toBe('Connection test passed: Connected and read the first records');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await expect.poll(() => page.locator('#add-source-message').textContent()).toBe(`Saved the settings of ${name}`);
      await screenshot(page, width === 390 ? 'edit-source-phone' : 'edit-source');
      const sourcesYml = readFileSync(path.join(quarry.dir, '.quarry', 'sources.yml'), 'utf8');
      expect(sourcesYml).toContain('timeout_seconds: 45');
      expect(sourcesYml).toContain('# Sources Quarry loads');
      expect(readFileSync(path.join(quarry.dir, '.env'), 'utf8')).toContain(`${name.toUpperCase()}_TOKEN='browser-items-token'`);
      await page.goto(`${quarry.url}/sources/${name}`);
      await expect.poll(() => page.locator('#config').textContent()).toContain('rest_api.timeout_seconds45');
      expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
      expect(consoleErrors).toEqual([]);
    }, 90_000);
  }

  it('says so, and writes nothing, when sources.yml changed since the form was opened', async () => {
    const { page } = await openForm(1280);
    await expect.poll(() => page.locator('#source-type option').count()).toBeGreaterThan(0);
    const file = path.join(quarry.dir, '.quarry', 'sources.yml');
    appendFileSync(file, '# edited by hand meanwhile\n');
    const before = readFileSync(file, 'utf8');
    await fillRestApi(page, 'late');
    await page.getByRole('button', { name: 'Save source' }).click();
    await expect.poll(() => page.locator('#add-source-message').textContent()).toContain('sources.yml changed since you read it');
    expect(readFileSync(file, 'utf8')).toBe(before);
  }, 60_000);

  for (const [width, name] of [[1280, 'items'], [390, 'items_phone']] as const) {
    it(`deletes ${name} from its page at ${String(width)} px after asking, its tables kept`, async () => {
      const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
      const consoleErrors: string[] = [];
      page.on('console', (message) => { if (message.type() === 'error') consoleErrors.push(message.text()); });
      await signIn(page, quarry.url, EMAILS.editor, PASSWORDS.editor);
      await page.waitForURL(`${quarry.url}/`);
      await page.goto(`${quarry.url}/sources/${name}`);
      await expect.poll(() => page.locator('#source-rows').textContent()).toBe('30');
      const sourcesFile = path.join(quarry.dir, '.quarry', 'sources.yml');
      const questions: string[] = [];
      page.once('dialog', (dialog) => { questions.push(dialog.message()); void dialog.dismiss(); });
      await page.getByRole('button', { name: 'Delete source…' }).click();
      await expect.poll(() => questions.length).toBe(1);
      expect(questions[0]).toBe(`Delete ${name} from sources.yml? its warehouse tables stay; its credentials stay in .env.`);
      expect(readFileSync(sourcesFile, 'utf8')).toContain(`- name: ${name}\n`);
      await screenshot(page, width === 390 ? 'delete-source-phone' : 'delete-source');
      page.once('dialog', (dialog) => { void dialog.accept(); });
      await page.getByRole('button', { name: 'Delete source…' }).click();
      await page.waitForURL(`${quarry.url}/`);
      expect(readFileSync(sourcesFile, 'utf8')).not.toContain(`- name: ${name}\n`);
      expect(readFileSync(sourcesFile, 'utf8')).toContain('# Sources Quarry loads');
      expect(await quarry.query(`SELECT count(*)::INTEGER AS n FROM raw_${name}.items`)).toEqual([{ n: 30 }]);
      expect(consoleErrors).toEqual([]);
    }, 60_000);
  }

  it('shows a viewer no Add source button and refuses the form', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await signIn(page, quarry.url, EMAILS.viewer, PASSWORDS.viewer);
    await page.waitForURL(`${quarry.url}/`);
    expect(await page.getByRole('link', { name: 'Add source' }).count()).toBe(0);
    const response = await page.goto(`${quarry.url}/sources/new`);
    expect(response?.status()).toBe(403);
  });
});
