import { appendFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Browser, Page } from 'playwright-core';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCE_TYPES } from '../../src/sources/config/index.ts';
import { startItemsApi } from '../fakes/items-api.ts';
import { launchBrowser, screenshot, signIn } from '../support/browser.ts';
import { records, type FakeApi } from '../support/fake-api.ts';
import { startObjectStore, type ObjectStore } from '../support/object-store.ts';
import { EMAILS, PASSWORDS, startQuarry, type TestQuarry } from '../support/quarry.ts';

const GAPMINDER = path.resolve(import.meta.dirname, '..', 'fixtures', 'real-world', 'tidyverse', 'readr', 'inst', 'extdata');

/** A person dropping a file from their desktop on the drop zone `zone`. */
async function dropFile(page: Page, zone: string, name: string, content: string): Promise<void> {
  // A string, not a function: the test's TypeScript has no DOM types.
  await page.evaluate(`(() => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([${JSON.stringify(content)}], ${JSON.stringify(name)}, { type: 'text/csv' }));
    document.getElementById(${JSON.stringify(zone)}).dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  })()`);
}

describe('adding a source in the browser', () => {
  let quarry: TestQuarry;
  let browser: Browser;
  let api: FakeApi;
  let store: ObjectStore;
  beforeAll(async () => {
    [quarry, browser, api, store] = await Promise.all([
      startQuarry({ users: ['admin', 'editor', 'viewer'] }), launchBrowser(),
      startItemsApi(records(30, (n) => ({ id: n, name: `item ${String(n)}` })), { token: 'browser-items-token' }),
      startObjectStore(),
    ]);
  });
  afterAll(async () => {
    await browser.close();
    await quarry.close();
    await api.close();
    await store.stop();
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
    await page.locator('#field-endpoints-0-path').fill('/items');
    await page.locator('#field-endpoints-0-data_selector').fill('data');
    await page.locator('#field-endpoints-0-primary_key').fill('id');
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
      // Saving starts the first sync: nothing more to press.
      await expect.poll(() => page.locator('#sync-result').textContent(), { timeout: 60_000 }).toBe('Synced: 30 rows loaded');
      expect(await page.getByRole('button', { name: 'Sync again' }).isEnabled()).toBe(true);
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
      expect(await page.locator('#field-endpoints-0-primary_key').inputValue()).toBe('id');
      expect(await page.locator('#field-auth_token_env-value').getAttribute('placeholder')).toBe('set');
      expect(await page.locator('#field-base_url-help').textContent()).toBe('The API root every endpoint path is relative to.');
      expect(await page.locator('#field-basic_username_env').isVisible()).toBe(false);
      expect(await page.locator('#type-help').textContent()).toBe('Signs in with: a bearer token.');
      await page.getByLabel('Authentication', { exact: true }).selectOption('basic');
      expect(await page.locator('#field-basic_username_env').isVisible()).toBe(true);
      expect(await page.locator('#field-auth_token_env').isVisible()).toBe(false);
      expect(await page.locator('#type-help').textContent()).toBe('Signs in with: a user name and password.');
      await page.getByLabel('Authentication', { exact: true }).selectOption('bearer');
      await page.getByText('More settings').click();
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

  it('adds a local_files source from its folder: proposed inside the data root, created on saving, CSV files uploaded right after and loaded', async () => {
    const { page, consoleErrors } = await openForm(1280);
    await page.getByLabel('Category').selectOption(SOURCE_TYPES.local_files.category);
    await page.getByLabel('Type', { exact: true }).selectOption('local_files');
    const lead = page.locator('#source-fields > .files-lead');
    expect(await lead.locator('strong').textContent()).toBe('Upload files, or point at a folder inside the data root');
    expect(await page.locator('#source-fields [data-field-block]').first().getAttribute('data-field-block')).toBe('directory');
    await page.getByLabel('Name', { exact: true }).fill('shop_files');
    expect(await page.getByLabel('Folder (required)').inputValue()).toBe('data/shop_files');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => page.locator('#test-result').textContent(), { timeout: 30_000 })
      .toBe('Connection test passed: data/shop_files does not exist yet: saving the source creates it, then you can upload files into it');
    const folder = path.join(quarry.dir, 'data', 'shop_files');
    expect(existsSync(folder)).toBe(false);
    await screenshot(page, 'add-source-files');

    await page.getByRole('button', { name: 'Save source' }).click();
    await expect.poll(() => page.locator('#add-source-message').textContent()).toBe('Added the local_files source "shop_files"; created its folder data/shop_files');
    expect(statSync(folder).isDirectory()).toBe(true);
    expect(await page.locator('#after-save-upload').isVisible()).toBe(true);
    await expect.poll(() => page.locator('#sync-result').textContent(), { timeout: 30_000 }).toBe('Synced: 0 rows loaded');

    await dropFile(page, 'upload-zone', 'jan.csv', 'id,amount\n1,10\n2,20\n');
    await expect.poll(() => page.locator('#upload-result').textContent()).toBe('Uploaded jan.csv');
    await expect.poll(() => page.locator('#sync-result').textContent(), { timeout: 30_000 }).toBe('Synced: 2 rows loaded');
    expect(readFileSync(path.join(folder, 'jan.csv'), 'utf8')).toBe('id,amount\n1,10\n2,20\n');
    expect(await quarry.query('SELECT count(*)::INTEGER AS n FROM raw_shop_files.shop_files')).toEqual([{ n: 2 }]);
    await screenshot(page, 'add-source-files-uploaded');
    expect(consoleErrors).toEqual([]);
  }, 90_000);

  it('adds an S3 folder as a filesystem source, saying why the type is offered, and shows its rows', async () => {
    await store.createBucket('team-exports');
    const s3 = new S3Client({
      region: store.region, endpoint: `http://${store.endpoint}`, forcePathStyle: true,
      credentials: { accessKeyId: store.accessKeyId, secretAccessKey: store.secretAccessKey },
    });
    try {
      for (const continent of ['africa', 'europe']) {
        await s3.send(new PutObjectCommand({
          Bucket: 'team-exports', Key: `gapminder/${continent}.csv`, Body: readFileSync(path.join(GAPMINDER, `mini-gapminder-${continent}.csv`)),
        }));
      }
    } finally {
      s3.destroy();
    }
    const { page, consoleErrors } = await openForm(1280);
    await page.getByLabel('Category').selectOption(SOURCE_TYPES.filesystem.category);
    await page.getByLabel('Type', { exact: true }).selectOption('filesystem');
    expect(await page.locator('#type-help').textContent()).toMatch(/^Offered for files in object storage .*Signs in with: an access key id/);
    await page.getByLabel('Name', { exact: true }).fill('exports');
    await page.locator('#field-bucket_url').fill('s3://team-exports/gapminder');
    await page.locator('#field-endpoint').fill(store.endpoint);
    await page.locator('#field-url_style').selectOption('path');
    expect(await page.locator('#field-use_ssl').isChecked()).toBe(true);
    await page.locator('#field-use_ssl').uncheck();
    await page.locator('#field-access_key_id_env').fill('EXPORTS_KEY_ID');
    await page.locator('#field-access_key_id_env-value').fill(store.accessKeyId);
    await page.locator('#field-secret_access_key_env').fill('EXPORTS_SECRET');
    await page.locator('#field-secret_access_key_env-value').fill(store.secretAccessKey);
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => page.locator('#test-result').textContent(), { timeout: 30_000 })
      .toBe('Connection test passed: 2 object(s) match * under s3://team-exports/gapminder/');
    await screenshot(page, 'add-source-bucket');

    await page.getByRole('button', { name: 'Save source' }).click();
    await expect.poll(() => page.locator('#add-source-message').textContent()).toContain('Added the filesystem source "exports"');
    await expect.poll(() => page.locator('#sync-result').textContent(), { timeout: 30_000 }).toBe('Synced: 12 rows loaded');
    const saved = parse(readFileSync(path.join(quarry.dir, '.quarry', 'sources.yml'), 'utf8')).sources.find((source: { name: string }) => source.name === 'exports');
    expect(saved.filesystem).toEqual({
      bucket_url: 's3://team-exports/gapminder', endpoint: store.endpoint, url_style: 'path', use_ssl: false,
      access_key_id_env: 'EXPORTS_KEY_ID', secret_access_key_env: 'EXPORTS_SECRET',
    });
    expect(readFileSync(path.join(quarry.dir, '.quarry', 'sources.yml'), 'utf8')).not.toContain(store.secretAccessKey);

    await page.goto(`${quarry.url}/sources/exports`);
    await expect.poll(() => page.locator('#objects tbody tr').count()).toBe(2);
    expect(await page.locator('#objects tbody th').allTextContents()).toEqual(['africa.csv', 'europe.csv']);
    expect(await page.locator('#objects tbody tr').first().locator('td').allTextContents()).toEqual([expect.stringMatching(/B$/), expect.any(String), 'loaded', '6']);
    await screenshot(page, 'source-bucket');
    expect(await quarry.query("SELECT count(*)::INTEGER AS n FROM raw_exports.exports WHERE country = 'Albania'")).toEqual([{ n: 1 }]);
    expect(consoleErrors).toEqual([]);
  }, 90_000);

  it('asks before saving beside a failed connection test, and hides the result once a field changes', async () => {
    const { page } = await openForm(1280);
    await fillRestApi(page, 'guarded');
    await page.locator('#field-auth_token_env-value').fill('not-the-token');
    await page.getByRole('button', { name: 'Test connection' }).click();
    const result = page.locator('#test-result');
    await expect.poll(() => result.textContent(), { timeout: 30_000 }).toContain('Connection test failed');
    const sourcesFile = path.join(quarry.dir, '.quarry', 'sources.yml');

    await page.getByRole('button', { name: 'Save source' }).click();
    await expect.poll(() => page.locator('#add-source-message').textContent()).toBe(
      'The connection test of these settings failed (see below). Fix them and test again, or press “Save anyway” to save them as they are.',
    );
    expect(await page.getByRole('button', { name: 'Save anyway' }).count()).toBe(1);
    expect(readFileSync(sourcesFile, 'utf8')).not.toContain('- name: guarded');
    await screenshot(page, 'add-source-failed-test-save');

    // Another value: the result no longer describes the form, and Save is plain again.
    await page.locator('#field-endpoints-0-primary_key').fill('');
    expect(await result.isVisible()).toBe(false);
    expect(await page.locator('#add-source-message').isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Save source' }).count()).toBe(1);
    // Back to what was tested: the failure stands again, and Save asks again before saving.
    await page.locator('#field-endpoints-0-primary_key').fill('id');
    expect(await result.isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Save source' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Save anyway' }).count()).toBe(1);
    expect(readFileSync(sourcesFile, 'utf8')).not.toContain('- name: guarded');
    await page.getByRole('button', { name: 'Save anyway' }).click();
    await expect.poll(() => page.locator('#add-source-message').textContent()).toBe('Added the rest_api source "guarded"');
    expect(readFileSync(sourcesFile, 'utf8')).toContain('- name: guarded');
  }, 60_000);

  it('reads like a product: the product beside each type key, labels, what it signs in with, several endpoints and headers as rows', async () => {
    const { page, consoleErrors } = await openForm(1280);
    await page.getByLabel('Category').selectOption(SOURCE_TYPES.crm_a.category);
    const offered = await page.locator('#source-type option').allTextContents();
    expect(offered).toEqual(expect.arrayContaining(['crm_a — HubSpot', 'crm_c — Pipedrive']));
    await page.getByLabel('Type', { exact: true }).selectOption('crm_a');
    expect(await page.locator('#type-help').textContent()).toBe('Signs in with: an API key or token, kept in an environment variable.');
    expect(await page.locator('label[for="field-api_key_env"]').textContent()).toBe('API key: the environment variable holding it');
    const handAdded = await page.locator('#not-addable li').allTextContents();
    expect(handAdded).toContain('task_tracker — Asana. Add it to sources.yml by hand; see docs/connectors/task_tracker.md.');
    expect(handAdded.join('\n')).not.toMatch(/SDK|untested|upstream loader/);

    await fillRestApi(page, 'two_lists');
    expect(await page.locator('label[for="field-base_url"]').textContent()).toBe('Base URL (required)');
    expect(await page.locator('#type-help').textContent()).toBe('Signs in with: a bearer token.');
    await page.getByLabel('Authentication', { exact: true }).selectOption('api_key');
    expect(await page.locator('#type-help').textContent()).toBe('Signs in with: an API key.');
    await page.getByLabel('Authentication', { exact: true }).selectOption('bearer');

    await page.getByRole('button', { name: 'Add an endpoint' }).click();
    await page.locator('#field-endpoints-1-path').fill('/items');
    await page.locator('[data-item]').nth(1).getByText('More options for this endpoint').click();
    await page.locator('#field-endpoints-1-table_name').fill('items_again');
    await page.locator('#field-endpoints-1-params-key-0').fill('sort');
    await page.locator('#field-endpoints-1-params-value-0').fill('name');
    await page.getByRole('button', { name: 'Add an endpoint' }).click();
    await page.locator('#field-endpoints-2-path').fill('/not-wanted');
    await page.getByRole('button', { name: 'Remove this endpoint' }).nth(2).click();
    expect(await page.locator('[data-item] > legend').allTextContents()).toEqual(['Endpoint 1', 'Endpoint 2']);
    await page.getByText('More settings').click();
    await page.locator('#field-headers-key-0').fill('X-Team');
    await page.locator('#field-headers-value-0').fill('data');
    await screenshot(page, 'add-source-endpoints');
    await page.getByRole('button', { name: 'Save source' }).click();
    await expect.poll(() => page.locator('#add-source-message').textContent()).toBe('Added the rest_api source "two_lists"');
    const saved = (parse(readFileSync(path.join(quarry.dir, '.quarry', 'sources.yml'), 'utf8')) as { sources: { name: string; rest_api: unknown }[] })
      .sources.find((source) => source.name === 'two_lists');
    expect(saved?.rest_api).toEqual({
      base_url: `${api.url}/v1`, auth_token_env: 'TWO_LISTS_TOKEN', headers: { 'X-Team': 'data' },
      endpoints: [{ path: '/items', data_selector: 'data', primary_key: 'id' }, { path: '/items', params: { sort: 'name' }, table_name: 'items_again' }],
    });
    await expect.poll(() => page.locator('#sync-result').textContent(), { timeout: 60_000 }).toMatch(/^Synced: /);

    await page.goto(`${quarry.url}/sources/two_lists/edit`);
    await expect.poll(() => page.locator('#field-endpoints-1-table_name').inputValue()).toBe('items_again');
    expect(await page.locator('#field-endpoints-1-params-value-0').inputValue()).toBe('name');
    expect(await page.locator('#field-headers-value-0').inputValue()).toBe('***');
    await screenshot(page, 'edit-source-endpoints');
    expect(consoleErrors).toEqual([]);
  }, 90_000);

  it('shows a viewer no Add source button and refuses the form', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await signIn(page, quarry.url, EMAILS.viewer, PASSWORDS.viewer);
    await page.waitForURL(`${quarry.url}/`);
    expect(await page.getByRole('link', { name: 'Add source' }).count()).toBe(0);
    const response = await page.goto(`${quarry.url}/sources/new`);
    expect(response?.status()).toBe(403);
  });
});
