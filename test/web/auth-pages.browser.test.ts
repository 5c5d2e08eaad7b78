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
    return context.newPage();
  }

  /** Answers the page's confirmation questions in turn (true: OK, false: Cancel) and collects what they asked. */
  function answerQuestions(page: Page, ...answers: boolean[]): string[] {
    const asked: string[] = [];
    page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      void (answers.shift() === true ? dialog.accept() : dialog.dismiss());
    });
    return asked;
  }

  /** The API requests of that method the page has sent so far, as "METHOD /path". */
  function recordRequests(page: Page, method: string): string[] {
    const sent: string[] = [];
    page.on('request', (request) => { if (request.method() === method) sent.push(`${method} ${new URL(request.url()).pathname}`); });
    return sent;
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
    // Signed out, not told the session expired (the feed's close and the page's requests race the sign-out).
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.url()).toBe(`${quarry.url}/login`);
    await expect.poll(() => page.locator('#whoami').count()).toBe(0);
  });

  it('creates an API key shown once; revoking asks first, keeps the key when declined and revokes it when confirmed', async () => {
    const page = await newPage();
    const asked = answerQuestions(page, false, true);
    const deletes = recordRequests(page, 'DELETE');
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
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toBe('Revoke the key "laptop script"? Scripts using it stop working at once.');
    await page.getByRole('button', { name: 'Revoke key laptop script' }).click();
    await expect.poll(() => page.locator('#account-message').textContent()).toBe('Key "laptop script" revoked.');
    expect(asked).toHaveLength(2);
    expect(deletes).toHaveLength(1);
    expect((await quarry.request('GET', '/api/auth/me', { apiKey: key })).status).toBe(401);
    await expect.poll(() => page.locator('#api-keys tbody').textContent()).toBe('No API keys yet.');
  });

  it('says so in the page when the current password is wrong, without signing the user out', async () => {
    const page = await newPage();
    await signIn(page, quarry.url, EMAILS.viewer, PASSWORDS.viewer);
    await page.waitForURL(`${quarry.url}/`);
    await page.goto(`${quarry.url}/settings/account`);
    await page.getByLabel('Current password').fill('not-the-password');
    await page.getByLabel('New password (at least 8 characters)').fill('another-viewer-password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.locator('#account-message').textContent()).toBe('The current password is not right.');
    expect(await page.locator('#account-message').getAttribute('class')).toBe('notice error');
    expect(new URL(page.url()).pathname).toBe('/settings/account');
    expect((await quarry.request('POST', '/api/auth/login', { body: { email: EMAILS.viewer, password: PASSWORDS.viewer } })).status).toBe(200);
  });

  it('offers to revoke the API keys with a password change, checked, and revokes them', async () => {
    await quarry.ctx.auth.addUser({ email: 'browser-rotate@test.local', role: 'viewer', password: 'browser-rotate-password' });
    const page = await newPage();
    await signIn(page, quarry.url, 'browser-rotate@test.local', 'browser-rotate-password');
    await page.waitForURL(`${quarry.url}/`);
    const cookie = (await page.context().cookies()).map((entry) => `${entry.name}=${entry.value}`).join('; ');
    const { json: key } = await quarry.request('POST', '/api/auth/api-keys', { cookie, headers: { 'x-requested-with': 'XMLHttpRequest' }, body: { name: 'script' } });
    await page.goto(`${quarry.url}/settings/account`);
    expect(await page.getByLabel('Also revoke all my API keys').isChecked()).toBe(true);
    await page.getByLabel('Current password').fill('browser-rotate-password');
    await page.getByLabel('New password (at least 8 characters)').fill('browser-rotated-password');
    await page.getByRole('button', { name: 'Change password' }).click();
    // Checking the old password and hashing the new one take a while.
    await expect.poll(() => page.locator('#account-message').textContent(), { timeout: 10_000 })
      .toBe('Password changed. Your other sessions were signed out and your API keys revoked.');
    expect((await quarry.request('GET', '/api/status', { apiKey: key.key as string })).status).toBe(401);
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

    await second.goto(`${quarry.url}/settings/account`);
    const asked = answerQuestions(second, true);
    quarry.clock.advance(30_000);
    await second.getByLabel('Code from your app').fill(totp.generate({ timestamp: quarry.clock.now().getTime() }));
    await second.getByRole('button', { name: 'Turn off' }).click();
    await expect.poll(() => second.locator('#twofactor-state').textContent()).toBe('Two-factor authentication is off.');
    expect(asked).toEqual(['Turn two-factor authentication off?']);
  });

  it('lets an admin add a user and change a role; a viewer sees no Users link and is refused the page', async () => {
    const page = await newPage();
    answerQuestions(page, true);
    await signIn(page, quarry.url, EMAILS.admin, PASSWORDS.admin);
    await page.waitForURL(`${quarry.url}/`);
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByLabel('Email').fill('hire@test.local');
    await page.getByLabel('Initial password').fill('hire-initial-password');
    await page.getByRole('button', { name: 'Add user' }).click();
    await expect.poll(() => page.locator('#users-message').textContent()).toBe('hire@test.local added.');
    await page.getByLabel('Role of hire@test.local').selectOption('editor');
    await expect.poll(async () => (await quarry.ctx.store.users.findByEmail('hire@test.local'))?.role).toBe('editor');

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

  it('asks before deleting or deactivating a user, does nothing when declined, and offers no such buttons on your own row', async () => {
    await quarry.ctx.auth.addUser({ email: 'leaver@test.local', role: 'viewer', password: 'leaver-password-123' });
    await quarry.ctx.auth.addUser({ email: 'pause@test.local', role: 'editor', password: 'pause-password-123' });
    const page = await newPage();
    const asked = answerQuestions(page, false, true, true);
    const deletes = recordRequests(page, 'DELETE');
    await signIn(page, quarry.url, EMAILS.admin, PASSWORDS.admin);
    await page.waitForURL(`${quarry.url}/`);
    await page.goto(`${quarry.url}/admin/users`);
    const own = page.locator(`tr[data-user="${EMAILS.admin}"]`);
    await expect.poll(() => own.locator('td').last().textContent()).toBe('You');
    expect(await own.locator('button').count()).toBe(0);
    expect(await page.getByLabel(`Role of ${EMAILS.admin}`).isDisabled()).toBe(true);

    await page.getByRole('button', { name: 'Delete leaver@test.local' }).click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toMatch(/^Delete leaver@test\.local\? .*cannot be undone\.$/);
    await page.getByRole('button', { name: 'Delete leaver@test.local' }).click();
    await expect.poll(() => page.locator('#users-message').textContent()).toBe('leaver@test.local deleted.');
    expect(deletes).toEqual(['DELETE /api/users/leaver%40test.local']);
    expect(await quarry.ctx.store.users.findByEmail('leaver@test.local')).toBeUndefined();
    await expect.poll(() => page.locator('tr[data-user="leaver@test.local"]').count()).toBe(0);

    await page.getByRole('button', { name: 'Deactivate pause@test.local' }).click();
    await expect.poll(() => page.locator('tr[data-user="pause@test.local"] td').nth(3).textContent()).toBe('inactive');
    expect(asked[2]).toBe('Deactivate pause@test.local? They are signed out at once.');
    expect((await quarry.ctx.store.users.findByEmail('pause@test.local'))?.active).toBe(false);
    await page.getByRole('button', { name: 'Activate pause@test.local' }).click();
    await expect.poll(async () => (await quarry.ctx.store.users.findByEmail('pause@test.local'))?.active).toBe(true);
    expect(asked).toHaveLength(3);
    await screenshot(page, 'admin-users');

    await page.setViewportSize({ width: 390, height: 844 });
    const button = await page.getByRole('button', { name: 'Delete pause@test.local' }).boundingBox();
    expect(button!.x + button!.width).toBeLessThanOrEqual(390);
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    await screenshot(page, 'admin-users-phone');
  });
});
