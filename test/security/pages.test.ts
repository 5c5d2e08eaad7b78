import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMAILS, PASSWORDS, startQuarry, type TestQuarry } from '../support/quarry.ts';

/** `next=` values that try to leave the site: other hosts, schemes, backslashes, dot segments, encodings, controls. */
const HOSTILE_NEXT = [
  '//evil.com', '//evil.com/path', '///evil.com', '////evil.com', '/\\evil.com', '\\\\evil.com', '/\\/evil.com',
  'https://evil.com', 'http://evil.com/', 'HTTPS://evil.com', 'https:evil.com', '//evil.com@quarry', 'javascript:alert(1)',
  '/.//evil.com', '/..//evil.com', '/a/..//evil.com', '/%2e//evil.com', '/./\\evil.com', '/.\\/evil.com',
  '%2F%2Fevil.com', '/%2F%2Fevil.com', '%2f%2fevil.com', '/%5Cevil.com', '%5C%5Cevil.com', '/%09/evil.com', '/\t/evil.com',
  '/\n/evil.com', '/\r\n//evil.com', ' //evil.com', '\u3002//evil.com', '/%E3%80%82/evil.com',
];

/** Where a Location header sends a browser that is on the Quarry site: same origin, or somewhere else. */
function staysOnSite(location: string | null, siteUrl: string): boolean {
  if (location === null) return true;
  const site = new URL(siteUrl);
  return new URL(location, site).origin === site.origin && !/^\s*[/\\]{2}/.test(location) && !/[\u0000-\u001f]/.test(location);
}

describe('pages: security headers, session cookies, redirects', () => {
  let quarry: TestQuarry;

  beforeAll(async () => {
    quarry = await startQuarry();
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('sends a CSP without inline scripts, frame-ancestors none, nosniff and a referrer policy on every page', async () => {
    const pages: [string, 'admin' | 'anonymous'][] = [
      ['/login', 'anonymous'], ['/', 'admin'], ['/settings/account', 'admin'], ['/settings/change-password', 'admin'],
      ['/admin/users', 'admin'], ['/api/docs/', 'admin'], ['/api/redoc', 'admin'], ['/no-such-page', 'admin'],
      ['/transform-docs/', 'admin'], ['/api/status', 'admin'], ['/api/no-such-endpoint', 'anonymous'],
    ];
    for (const [page, as] of pages) {
      const response = await quarry.request('GET', page, { as, headers: { accept: 'text/html' } });
      const csp = response.headers.get('content-security-policy') ?? '';
      const directives = new Map(csp.split(';').map((part) => part.trim().split(/\s+/)).map(([name = '', ...values]) => [name, values]));
      const scripts = directives.get('script-src') ?? directives.get('default-src') ?? [];
      expect({ page, scripts }).toEqual({ page, scripts: ["'self'"] });
      expect({ page, unsafe: csp.includes("'unsafe-eval'") || /script-src[^;]*unsafe-inline/.test(csp) }).toEqual({ page, unsafe: false });
      expect({ page, frameAncestors: directives.get('frame-ancestors') }).toEqual({ page, frameAncestors: ["'none'"] });
      expect({ page, objectSrc: directives.get('object-src'), baseUri: directives.get('base-uri') })
        .toEqual({ page, objectSrc: ["'none'"], baseUri: ["'self'"] });
      expect({ page, nosniff: response.headers.get('x-content-type-options') }).toEqual({ page, nosniff: 'nosniff' });
      expect({ page, referrer: response.headers.get('referrer-policy') }).toEqual({ page, referrer: 'same-origin' });
      expect({ page, frames: response.headers.get('x-frame-options') }).toEqual({ page, frames: 'DENY' });
    }
  });

  it('serves pages with no inline script the CSP would have to allow', async () => {
    for (const page of ['/login', '/', '/settings/account', '/admin/users', '/api/redoc', '/api/docs/']) {
      const html = (await quarry.request('GET', page, { as: page === '/login' ? 'anonymous' : 'admin' })).text;
      const inline = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)].filter(([, attributes = '', body = '']) => !/\bsrc=/.test(attributes) && body.trim() !== '');
      expect({ page, inline: inline.map(([whole]) => whole.slice(0, 80)) }).toEqual({ page, inline: [] });
      expect({ page, handlers: /\son[a-z]+\s*=/i.test(html.replace(/<script[\s\S]*?<\/script>/gi, '')) }).toEqual({ page, handlers: false });
    }
  });

  it('keeps authenticated answers out of caches', async () => {
    for (const page of ['/', '/api/auth/me', '/api/users']) {
      expect((await quarry.request('GET', page, { as: 'admin' })).headers.get('cache-control')).toBe('no-store');
    }
  });

  it('sets the session cookie HttpOnly, SameSite=Lax, on the whole site, and clears it on logout', async () => {
    const login = await quarry.request('POST', '/api/auth/login', { body: { email: EMAILS.viewer, password: PASSWORDS.viewer } });
    const cookie = login.headers.getSetCookie().find((value) => value.startsWith('svc_session=')) ?? '';
    const attributes = cookie.split(';').slice(1).map((part) => part.trim().toLowerCase());
    expect(attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=lax', 'path=/']));
    expect(attributes.some((attribute) => attribute.startsWith('domain='))).toBe(false);
    expect(cookie.split(';')[0]).toMatch(/^svc_session=[A-Za-z0-9_-]{32,}$/);
    const logout = await quarry.request('POST', '/api/auth/logout', { cookie: cookie.split(';')[0], headers: { 'x-requested-with': 'XMLHttpRequest' } });
    expect(logout.headers.getSetCookie().find((value) => value.startsWith('svc_session='))).toMatch(/^svc_session=;.*Expires=Thu, 01 Jan 1970/);
  });

  it('ends no session on a GET to the dashboard tool\'s logout links, which a cross-site navigation can send', async () => {
    const cookie = await quarry.login('viewer');
    for (const path of ['/dashboard/logout/', '/dashboard/dashboard/logout/']) {
      const response = await quarry.request('GET', path, { cookie, headers: { 'sec-fetch-site': 'cross-site' } });
      expect({ path, status: response.status, location: response.headers.get('location'), cleared: response.headers.getSetCookie() })
        .toEqual({ path, status: 303, location: '/settings/account', cleared: [] });
    }
    expect((await quarry.request('GET', '/api/auth/me', { cookie })).status).toBe(200);
  });

  it('never redirects to another site through next= on the login page, the login form or the 2FA step', async () => {
    const form = (next: string) => new URLSearchParams({ email: EMAILS.viewer, password: PASSWORDS.viewer, next }).toString();
    const formHeaders = { 'content-type': 'application/x-www-form-urlencoded', origin: quarry.url };
    const signedIn = await quarry.login('viewer');
    for (const next of HOSTILE_NEXT) {
      const locations = [
        (await quarry.request('POST', '/api/auth/login', { body: form(next), headers: formHeaders })).headers.get('location'),
        (await quarry.request('GET', `/login?next=${encodeURIComponent(next)}`, { cookie: signedIn })).headers.get('location'),
      ];
      // A signed-in session has no two-factor step to finish, so the step names no place to go.
      const verify = await quarry.request('POST', '/api/auth/2fa/verify', { cookie: signedIn, headers: { 'x-requested-with': 'XMLHttpRequest' }, body: { code: '000000', next } });
      expect({ status: verify.status, redirect: verify.json.redirect as unknown }).toEqual({ status: 409, redirect: undefined });
      for (const location of locations) expect({ next, location, onSite: staysOnSite(location, quarry.url) }).toEqual({ next, location, onSite: true });
      const page = await quarry.request('GET', `/login?next=${encodeURIComponent(next)}`);
      const hidden = /name="next" value="([^"]*)"/.exec(page.text)?.[1] ?? '/';
      expect({ next, hidden, onSite: staysOnSite(hidden.replace(/&amp;/g, '&'), quarry.url) }).toEqual({ next, hidden, onSite: true });
    }
  });

  it('never answers a JSON login with a redirect to another site', async () => {
    for (const next of ['//evil.com', '/.//evil.com', '/%2F%2Fevil.com', 'https://evil.com']) {
      const response = await quarry.request('POST', '/api/auth/login', { body: { email: EMAILS.viewer, password: PASSWORDS.viewer, next } });
      expect({ next, onSite: staysOnSite(response.json.redirect as string, quarry.url) }).toEqual({ next, onSite: true });
    }
  });

  it('still goes back to a path on the site after login', async () => {
    const response = await quarry.request('POST', '/api/auth/login', { body: { email: EMAILS.viewer, password: PASSWORDS.viewer, next: '/settings/account?tab=keys' } });
    expect(response.json.redirect).toBe('/settings/account?tab=keys');
  });

  it('keeps next= on the site through a two-factor login', async () => {
    await quarry.ctx.auth.addUser({ email: 'two-factor@test.local', role: 'viewer', password: 'two-factor-password' });
    const first = await quarry.request('POST', '/api/auth/login', { body: { email: 'two-factor@test.local', password: 'two-factor-password' } });
    const cookie = (first.headers.getSetCookie().find((value) => value.startsWith('svc_session=')) ?? '').split(';')[0] ?? '';
    const xhr = { 'x-requested-with': 'XMLHttpRequest' };
    const { json: enrollment } = await quarry.request('POST', '/api/auth/2fa/setup', { cookie, headers: xhr });
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(String(enrollment.secret)) });
    expect((await quarry.request('POST', '/api/auth/2fa/enable', { cookie, headers: xhr, body: { code: totp.generate({ timestamp: quarry.clock.now().getTime() }) } })).status).toBe(200);
    quarry.clock.advance(60_000);
    const partial = await quarry.request('POST', '/api/auth/login', { body: { email: 'two-factor@test.local', password: 'two-factor-password', next: '/.//evil.com' } });
    expect(partial.json).toEqual({ success: true, requires_2fa: true });
    const partialCookie = (partial.headers.getSetCookie().find((value) => value.startsWith('svc_session=')) ?? '').split(';')[0] ?? '';
    const verified = await quarry.request('POST', '/api/auth/2fa/verify', {
      cookie: partialCookie, headers: xhr, body: { code: totp.generate({ timestamp: quarry.clock.now().getTime() }), next: '/.//evil.com' },
    });
    expect(verified.status).toBe(200);
    expect(staysOnSite(verified.json.redirect as string, quarry.url)).toBe(true);
  });
});

describe('session cookies behind a TLS proxy', () => {
  it('are Secure when the public URL is https, and when a trusted proxy says the request came over TLS', async () => {
    const behindProxy = await startQuarry({ projectConfig: { web: { public_url: 'https://quarry.example.com' }, trusted_proxies: ['127.0.0.1'] } });
    try {
      // A proxy that does not say X-Forwarded-Proto: the public URL alone decides.
      const direct = await behindProxy.request('POST', '/api/auth/login', { body: { email: EMAILS.viewer, password: PASSWORDS.viewer } });
      expect(direct.headers.getSetCookie().find((value) => value.startsWith('svc_session='))).toMatch(/;\s*Secure/i);
      const forwarded = await behindProxy.request('POST', '/api/auth/login', {
        body: { email: EMAILS.viewer, password: PASSWORDS.viewer }, headers: { 'x-forwarded-proto': 'https' },
      });
      expect(forwarded.headers.getSetCookie().find((value) => value.startsWith('svc_session='))).toMatch(/;\s*Secure/i);
    } finally {
      await behindProxy.close();
    }
  });
});
