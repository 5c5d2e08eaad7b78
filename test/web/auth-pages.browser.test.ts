import * as OTPAuth from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, signIn } from '../support/browser.ts';
import { EMAILS, PASSWORDS, startQuarry, type TestQuarry } from '../support/quarry.ts';

describe('authentication pages in Chromium', () => {
  let quarry: TestQuarry;
  let browser: Browser;
  beforeAll(async () => {
    [quarry, browser] = await Promise.all([startQuarry(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser.close();
    await quarry.close();
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.on('dialog', (dialog) => { void dialog.accept(); });
    return page;
  }

  it('shows an error for a wrong password, then signs in and says who you are', async () => {
    const page = await newPage();
    await signIn(page, quarry.url, EMAILS.editor, 'not-my-password');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Invalid email or password');
    await screenshot(page, 'login-error');
    await page.getByLabel('Password').fill(PASSWORDS.editor);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${quarry.url}/`);
    expect(await page.locator('#whoami').textContent()).toBe(EMAILS.editor);
    await screenshot(page, 'home');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login/);
  });

  it('creates an API key shown once, and revokes it after confirming', async () => {
    const page = await newPage();
    await signIn(page, quarry.url, EMAILS.viewer, PASSWORDS.viewer);
    await page.waitForURL(`${quarry.url}/`);
    await page.goto(`${quarry.url}/settings/account`);
    await page.getByLabel('Name').fill('laptop script');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.locator('#new-key-value').textContent()).toMatch(/^svc_ak_/);
    const key = (await page.locator('#new-key-value').textContent())!;
    expect((await quarry.request('GET', '/api/auth/me', { apiKey: key })).status).toBe(200);
    await expect.poll(() => page.locator('#api-keys tbody tr').count()).toBe(1);
    await screenshot(page, 'account');
    await page.getByRole('button', { name: 'Revoke key laptop script' }).click();
    await expect.poll(() => page.locator('#account-message').textContent()).toBe('Key "laptop script" revoked.');
    expect((await quarry.request('GET', '/api/auth/me', { apiKey: key })).status).toBe(401);
  });

  it('enrolls two-factor from the QR code page, then the login asks for the code', async () => {
    await quarry.ctx.auth.addUser({ email: 'browser-2fa@test.local', role: 'viewer', password: 'browser-2fa-password' });
    const page = await newPage();
    await signIn(page, quarry.url, 'browser-2fa@test.local', 'browser-2fa-password');
    await page.waitForURL(`${quarry.url}/`);
    await page.goto(`${quarry.url}/settings/account`);
    await page.getByRole('button', { name: 'Set up two-factor' }).click();
    await expect.poll(() => page.locator('#twofactor-qr').evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
    const secret = (await page.locator('#twofactor-secret').textContent())!;
    await screenshot(page, 'two-factor-enrollment');
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
    await page.getByLabel('Code from your app').fill(totp.generate({ timestamp: quarry.clock.now().getTime() }));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await expect.poll(() => page.locator('#twofactor-state').textContent()).toBe('Two-factor authentication is on.');

    quarry.clock.advance(30_000);
    const second = await newPage();
    await signIn(second, quarry.url, 'browser-2fa@test.local', 'browser-2fa-password');
    await second.getByLabel('Two-factor code').fill(totp.generate({ timestamp: quarry.clock.now().getTime() }));
    await screenshot(second, 'login-two-factor');
    await second.getByRole('button', { name: 'Verify' }).click();
    await second.waitForURL(`${quarry.url}/`);
  });

  it('lets an admin add a user and change a role; a viewer sees no Users link and is refused the page', async () => {
    const page = await newPage();
    await signIn(page, quarry.url, EMAILS.admin, PASSWORDS.admin);
    await page.waitForURL(`${quarry.url}/`);
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByLabel('Email').fill('hire@test.local');
    await page.getByLabel('Initial password').fill('hire-initial-password');
    await page.getByRole('button', { name: 'Add user' }).click();
    await expect.poll(() => page.locator('#users-message').textContent()).toBe('hire@test.local added.');
    await page.getByLabel('Role of hire@test.local').selectOption('editor');
    await expect.poll(() => quarry.ctx.store.users.findByEmail('hire@test.local')?.role).toBe('editor');
    await screenshot(page, 'admin-users');

    const viewer = await newPage();
    await signIn(viewer, quarry.url, EMAILS.viewer, PASSWORDS.viewer);
    await viewer.waitForURL(`${quarry.url}/`);
    expect(await viewer.getByRole('link', { name: 'Users' }).count()).toBe(0);
    const response = await viewer.goto(`${quarry.url}/admin/users`);
    expect(response?.status()).toBe(403);
  });

  it('forces the change-password page on an emergency admin, then lets them in', async () => {
    const { email, password } = await quarry.ctx.auth.recover();
    const page = await newPage();
    await signIn(page, quarry.url, email, password);
    await page.waitForURL(`${quarry.url}/settings/change-password`);
    await page.goto(`${quarry.url}/`);
    await page.waitForURL(`${quarry.url}/settings/change-password`);
    await screenshot(page, 'change-password');
    await page.getByLabel('Current password').fill(password);
    await page.getByLabel('New password (at least 8 characters)').fill('a-new-admin-password');
    await page.getByLabel('New password again').fill('a-new-admin-password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForURL(`${quarry.url}/`);
    expect(await page.locator('#whoami').textContent()).toBe(email);
  });
});
