import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startQuarry, type TestQuarry } from './quarry.ts';

export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, '..', '..', 'test-results', 'screenshots');

/** Debian's Chromium, headless, with the flags this closed network needs. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

export async function signIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A Quarry with one `orders` local_files source holding a 3-row CSV, beside a browser: the pages' usual stage. */
export async function startOrdersStage(): Promise<{ quarry: TestQuarry; browser: Browser }> {
  const [quarry, browser] = await Promise.all([
    startQuarry({ sourcesYaml: 'sources:\n  - name: orders\n    type: local_files\n    local_files: { directory: data/orders }\n' }),
    launchBrowser(),
  ]);
  mkdirSync(path.join(quarry.dir, 'data', 'orders'), { recursive: true });
  writeFileSync(path.join(quarry.dir, 'data', 'orders', 'a.csv'), 'id,amount\n1,10\n2,20\n3,30\n');
  return { quarry, browser };
}
