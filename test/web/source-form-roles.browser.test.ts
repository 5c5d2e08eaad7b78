import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCE_TYPES } from '../../src/sources/config/index.ts';
import type { Role } from '../../src/store/index.ts';
import { launchBrowser, screenshot, signIn } from '../support/browser.ts';
import { EMAILS, PASSWORDS, startQuarry, type TestQuarry } from '../support/quarry.ts';

const SOURCES = `sources:
  - name: orders
    type: local_files
    local_files: { directory: data/orders }
  - name: feed
    type: native_pipeline
    native_pipeline: { source_module: orders_feed, source_function: orders }
`;

const FEED_MODULE = `import dlt

@dlt.source
def orders():
    return dlt.resource([{"id": 1}], name="orders")
`;

/** Chromium's own console line for a request answered 400: the page logs nothing of its own. */
const REFUSED_REQUEST = 'Failed to load resource: the server responded with a status of 400 (Bad Request)';

describe('the add-source form for an editor and an admin', () => {
  let quarry: TestQuarry;
  let browser: Browser;
  beforeAll(async () => {
    [quarry, browser] = await Promise.all([
      startQuarry({
        users: ['admin', 'editor'],
        // The embedded defaults: sources may not reach this machine (the other tests let them, for their fakes).
        projectConfig: { network: { allow_private: [] } },
        sourcesYaml: SOURCES,
        prepare: (dir) => {
          mkdirSync(path.join(dir, 'pipelines'), { recursive: true });
          writeFileSync(path.join(dir, 'pipelines', 'orders_feed.py'), FEED_MODULE);
          mkdirSync(path.join(dir, 'data', 'orders'), { recursive: true });
          writeFileSync(path.join(dir, 'data', 'orders', 'a.csv'), 'id,amount\n1,10\n');
        },
      }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser.close();
    await quarry.close();
  });

  const sourcesFile = (): string => readFileSync(path.join(quarry.dir, '.quarry', 'sources.yml'), 'utf8');
  const envFile = (): string => readFileSync(path.join(quarry.dir, '.env'), 'utf8');

  /** A page signed in as `role`, on the overview, collecting the console's errors. */
  async function signedIn(role: Role): Promise<{ page: Page; consoleErrors: string[] }> {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const consoleErrors: string[] = [];
    page.on('console', (message) => { if (message.type() === 'error') consoleErrors.push(message.text()); });
    page.on('pageerror', (error) => { consoleErrors.push(error.message); });
    await signIn(page, quarry.url, EMAILS[role], PASSWORDS[role]);
    await page.waitForURL(`${quarry.url}/`);
    return { page, consoleErrors };
  }

  /** Opens the form from the overview's Add source button. */
  async function openForm(role: Role): Promise<{ page: Page; consoleErrors: string[] }> {
    const { page, consoleErrors } = await signedIn(role);
    await page.getByRole('link', { name: 'Add source' }).click();
    await page.waitForURL(`${quarry.url}/sources/new`);
    await expect.poll(() => page.locator('#source-type option').count()).toBeGreaterThan(0);
    return { page, consoleErrors };
  }

  /** Every type the form's Type list offers, category by category, as a user would find them. */
  async function offeredTypes(page: Page): Promise<string[]> {
    const offered: string[] = [];
    for (const category of await page.locator('#source-category option').allTextContents()) {
      await page.getByLabel('Category').selectOption(category);
      offered.push(...await page.locator('#source-type option').evaluateAll((options) => options.map((option) => option.getAttribute('value') ?? '')));
    }
    return offered;
  }

  /** The line of "Types added by hand" naming `type` (other types' reasons may mention it too). */
  function notAddable(page: Page, type: string): Locator {
    return page.locator('#not-addable li').filter({ has: page.locator('code', { hasText: new RegExp(`^${type}$`) }) });
  }

  /** Saves the form and waits for what it says beside its buttons. */
  async function saveAndReadMessage(page: Page): Promise<string> {
    await page.getByRole('button', { name: 'Save source' }).click();
    const message = page.locator('#add-source-message');
    await expect.poll(() => message.isVisible()).toBe(true);
    return await message.textContent() ?? '';
  }

  /** The message is in view where the user just clicked Save, not above the fold of a long form. */
  async function expectMessageInView(page: Page): Promise<void> {
    const box = await page.locator('#add-source-message').boundingBox();
    expect(box).not.toBeNull();
    // The box is where it sits in the viewport, scrolled as the page is.
    expect(box?.y ?? -1).toBeGreaterThanOrEqual(0);
    expect((box?.y ?? 0) + (box?.height ?? 0)).toBeLessThanOrEqual(page.viewportSize()?.height ?? 0);
  }

  /** The overview lists its sources, and not `name`. */
  async function expectNotListed(page: Page, name: string): Promise<void> {
    await page.goto(`${quarry.url}/`);
    await expect.poll(() => page.locator('tr[data-source="orders"]').count()).toBe(1);
    expect(await page.locator(`tr[data-source="${name}"]`).count()).toBe(0);
  }

  async function fillRestApi(page: Page, name: string, baseUrl: string): Promise<void> {
    await page.getByLabel('Category').selectOption(SOURCE_TYPES.rest_api.category);
    await page.getByLabel('Type', { exact: true }).selectOption('rest_api');
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.locator('#field-base_url').fill(baseUrl);
    await page.locator('#field-endpoints-0-path').fill('/items');
  }

  it('does not offer an editor the type that runs code, and says only an admin adds it', async () => {
    const { page, consoleErrors } = await openForm('editor');
    expect(await offeredTypes(page)).not.toContain('native_pipeline');
    expect(await page.locator('#admin-types').isVisible()).toBe(true);
    expect(await page.locator('#admin-types p').textContent()).toBe('These run code on the server: ask an admin to add one.');
    expect(await page.locator('#admin-only li').allTextContents()).toEqual(['native_pipeline — a dlt source in Python']);
    expect(await notAddable(page, 'native_pipeline').count()).toBe(0);
    await screenshot(page, 'source-form-editor-types');
    expect(consoleErrors).toEqual([]);
  });

  it('tells an editor on the edit page of a saved native_pipeline source that only an admin edits it', async () => {
    const { page, consoleErrors } = await signedIn('editor');
    await page.goto(`${quarry.url}/sources/feed`);
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.waitForURL(`${quarry.url}/sources/feed/edit`);
    const message = page.locator('#add-source-message');
    await expect.poll(() => message.textContent()).toBe('Only an admin edits a native_pipeline source: it runs code on the server');
    expect(await page.getByRole('button', { name: 'Save changes' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Test connection' }).isDisabled()).toBe(true);
    expect(await page.locator('#type-help').textContent()).toBe('Signs in with: nothing (no credentials).');
    await screenshot(page, 'source-form-editor-edits-native-pipeline');
    expect(consoleErrors).toEqual([]);
  });

  it('refuses an editor a local_files folder outside the data roots, beside the form, saving nothing', async () => {
    const { page, consoleErrors } = await openForm('editor');
    const before = sourcesFile();
    await page.getByLabel('Category').selectOption(SOURCE_TYPES.local_files.category);
    await page.getByLabel('Type', { exact: true }).selectOption('local_files');
    await page.getByLabel('Name', { exact: true }).fill('system_files');
    await page.locator('#field-directory').fill('/etc');
    expect(await saveAndReadMessage(page)).toBe(
      'local_files.directory: /etc is outside the data roots (data): move the files into one, or have an admin add the folder to data_roots in .quarry/project.yml',
    );
    await screenshot(page, 'source-form-outside-data-roots');
    await expectMessageInView(page);
    expect(await page.locator('#after-save').isVisible()).toBe(false);
    expect(sourcesFile()).toBe(before);
    await expectNotListed(page, 'system_files');
    expect(consoleErrors).toEqual([REFUSED_REQUEST]);
  });

  it('refuses an editor a credential variable that belongs to Quarry, writing neither file', async () => {
    const { page, consoleErrors } = await openForm('editor');
    const [sourcesBefore, envBefore] = [sourcesFile(), envFile()];
    await fillRestApi(page, 'owned_variable', 'https://api.example.com/v1');
    await page.locator('#field-auth_token_env').fill('QUARRY_LOG_LEVEL');
    await page.locator('#field-auth_token_env-value').fill('debug');
    expect(await saveAndReadMessage(page)).toBe(
      'QUARRY_LOG_LEVEL belongs to Quarry or its runtime, not to a source: name another variable for the credential',
    );
    await screenshot(page, 'source-form-variable-not-allowed');
    await expectMessageInView(page);
    expect(sourcesFile()).toBe(sourcesBefore);
    expect(envFile()).toBe(envBefore);
    await expectNotListed(page, 'owned_variable');
    expect(consoleErrors).toEqual([REFUSED_REQUEST]);
  });

  it('refuses an editor a base URL that holds user:password@, without repeating it', async () => {
    const { page, consoleErrors } = await openForm('editor');
    const before = sourcesFile();
    await fillRestApi(page, 'url_credentials', 'https://reader:hunter22@api.example.com/v1');
    const text = await saveAndReadMessage(page);
    expect(text).toContain('rest_api.base_url: holds credentials before the host (user:password@); keep the credential in an environment variable');
    expect(text).not.toContain('hunter22');
    await screenshot(page, 'source-form-url-credentials');
    await expectMessageInView(page);
    expect(sourcesFile()).toBe(before);
    await expectNotListed(page, 'url_credentials');
    expect(consoleErrors).toEqual([REFUSED_REQUEST]);
  });

  it('refuses an editor\'s connection test of a base URL on this machine', async () => {
    const { page, consoleErrors } = await openForm('editor');
    await fillRestApi(page, 'this_machine', `${quarry.url}/api`);
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => page.locator('#test-result').textContent(), { timeout: 30_000 }).toBe(
      'Connection test failed: Quarry does not connect to 127.0.0.1: it is a loopback address (this machine); an admin can allow the host under network.allow_private in project.yml',
    );
    await screenshot(page, 'source-form-loopback');
    expect(consoleErrors).toEqual([]);
  });

  it('offers an admin the type that runs code', async () => {
    const { page, consoleErrors } = await openForm('admin');
    expect(await offeredTypes(page)).toContain('native_pipeline');
    expect(await notAddable(page, 'native_pipeline').count()).toBe(0);
    expect(await page.locator('#admin-types').isVisible()).toBe(false);
    await page.getByLabel('Category').selectOption(SOURCE_TYPES.native_pipeline.category);
    await page.getByLabel('Type', { exact: true }).selectOption('native_pipeline');
    await expect.poll(() => page.locator('#field-source_module').count()).toBe(1);
    expect(await page.locator('#type-help').textContent()).toBe(
      'Signs in with: nothing (no credentials). It runs code on the server, so it is not tested before it is saved: save it, then sync it.',
    );
    expect(await page.getByRole('button', { name: 'Test connection' }).isDisabled()).toBe(true);
    await page.getByLabel('Type', { exact: true }).selectOption('rest_api');
    expect(await page.getByRole('button', { name: 'Test connection' }).isDisabled()).toBe(false);
    await page.getByLabel('Type', { exact: true }).selectOption('native_pipeline');
    await screenshot(page, 'source-form-admin-native-pipeline');
    expect(consoleErrors).toEqual([]);
  });
});
