import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot } from '../support/browser.ts';
import { startIdentityProvider, type IdentityProvider } from '../support/identity-provider.ts';
import { EMAILS, startQuarry, type TestQuarry } from '../support/quarry.ts';

describe('OAuth login against a real local identity provider', () => {
  let idp: IdentityProvider;
  let quarry: TestQuarry;
  let browser: Browser;

  beforeAll(async () => {
    idp = await startIdentityProvider({
      'editor-at-idp': { email: EMAILS.editor.toUpperCase(), emailVerified: true },
      stranger: { email: 'stranger@elsewhere.example', emailVerified: true },
      unverified: { email: EMAILS.viewer, emailVerified: false },
      'second-address': { email: 'private@elsewhere.example', emailVerified: true, otherEmails: [EMAILS.viewer] },
    });
    quarry = await startQuarry({
      env: { QUARRY_GOOGLE_CLIENT_SECRET: idp.clientSecret, QUARRY_GITHUB_CLIENT_SECRET: idp.clientSecret },
      projectConfig: {
        oauth: {
          google: { client_id: idp.clientId, issuer: idp.issuer },
          github: { client_id: idp.clientId, authorization_url: `${idp.issuer}/auth`, token_url: `${idp.issuer}/token`, api_url: `${idp.issuer}/api` },
        },
      },
    });
    idp.start([`${quarry.url}/auth/oauth/google/callback`, `${quarry.url}/auth/oauth/github/callback`]);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser.close();
    await quarry.close();
    await idp.close();
  });

  async function loginVia(provider: 'Google' | 'GitHub', account: string, next?: string): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${quarry.url}/login${next === undefined ? '' : `?next=${encodeURIComponent(next)}`}`);
    await page.getByRole('link', { name: `Sign in with ${provider}` }).click();
    await page.locator('input[name="login"]').fill(account);
    await page.locator('input[name="password"]').fill('any password');
    await page.locator('button[type="submit"]').click();
    await page.waitForURL((url) => url.origin === quarry.url);
    return page;
  }

  it('shows a button per configured provider on the login page', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${quarry.url}/login`);
    expect(await page.getByRole('link', { name: 'Sign in with Google' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Sign in with GitHub' }).count()).toBe(1);
    await screenshot(page, 'login-with-oauth');
  });

  it('signs in an existing user through the OpenID Connect provider and links it', async () => {
    const page = await loginVia('Google', 'editor-at-idp', '/settings/account');
    expect(new URL(page.url()).pathname).toBe('/settings/account');
    const cookies = await page.context().cookies();
    const session = cookies.find((cookie) => cookie.name === 'svc_session');
    expect(session?.httpOnly).toBe(true);
    const me = await quarry.request('GET', '/api/auth/me', { cookie: `svc_session=${session!.value}` });
    expect(me.json.email).toBe(EMAILS.editor);
    expect((await quarry.ctx.store.users.findByEmail(EMAILS.editor))?.oauthProvider).toBe('google');
  });

  it('signs in through the code-host provider using a verified address from its emails API', async () => {
    const page = await loginVia('GitHub', 'second-address');
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await page.locator('#whoami').textContent()).toBe(EMAILS.viewer);
  });

  it('never creates an account: an unknown email goes back to the login page with an error', async () => {
    const page = await loginVia('Google', 'stranger');
    expect(page.url()).toBe(`${quarry.url}/login?error=oauth_no_account`);
    expect(await page.getByRole('alert').textContent()).toContain('No Quarry account uses that email');
    expect(await quarry.ctx.store.users.findByEmail('stranger@elsewhere.example')).toBeUndefined();
    expect((await page.context().cookies()).some((cookie) => cookie.name === 'svc_session')).toBe(false);
  });

  it('refuses an address the provider has not verified', async () => {
    const page = await loginVia('Google', 'unverified');
    expect(page.url()).toBe(`${quarry.url}/login?error=oauth_failed`);
  });

  it('refuses a callback without the flow cookie or with a forged state', async () => {
    const forged = await quarry.request('GET', '/auth/oauth/google/callback?code=abc&state=forged');
    expect(forged.status).toBe(303);
    expect(forged.headers.get('location')).toBe('/login?error=oauth_failed');
    const unknown = await quarry.request('GET', '/auth/oauth/myspace/start');
    expect(unknown.status).toBe(404);
  });
});
