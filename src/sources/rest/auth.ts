import { SyncFailedError } from '../sync-failed-error.ts';
import type { HttpClient, HttpRequest } from './http-client.ts';

/** How a connector's requests carry their credentials. */
export interface AuthStrategy {
  apply(request: HttpRequest): Promise<void>;
  /** After a 401: forget a cached credential and say whether retrying once could help. */
  refresh?(): boolean;
}

export const noAuth: AuthStrategy = { apply: () => Promise.resolve() };

export function headerAuth(name: string, value: string): AuthStrategy {
  return {
    apply(request) {
      request.headers[name] = value;
      return Promise.resolve();
    },
  };
}

export function bearerAuth(token: string): AuthStrategy {
  return headerAuth('authorization', `Bearer ${token}`);
}

export function basicAuth(username: string, password: string): AuthStrategy {
  return headerAuth('authorization', `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`);
}

export function queryAuth(name: string, value: string): AuthStrategy {
  return {
    apply(request) {
      request.url.searchParams.set(name, value);
      return Promise.resolve();
    },
  };
}

export interface TokenGrant {
  readonly tokenUrl: string;
  /** Form fields of the token request (grant_type and the grant's own). */
  readonly form: Readonly<Record<string, string>>;
  /** Client credentials sent as HTTP Basic, as RFC 6749 prefers, instead of in the form. */
  readonly basic?: { clientId: string; clientSecret: string };
}

export interface IssuedToken {
  readonly accessToken: string;
  readonly expiresAt: number;
  /** Present when the provider rotates refresh tokens. */
  readonly refreshToken?: string;
  /** The token endpoint's whole answer, for providers that put more in it (Salesforce's `instance_url`). */
  readonly response?: Readonly<Record<string, unknown>>;
}

/** Tokens live in the process, not on disk: shared by every sync that uses the same grant until shortly before they expire. */
const tokenCache = new Map<string, IssuedToken>();
const EXPIRY_MARGIN_MS = 60_000;

/**
 * A bearer token from an OAuth 2 token endpoint (client credentials, a refresh token or a signed
 * assertion), cached until a minute before it expires and fetched again after a 401.
 */
export function oauthTokenAuth(grant: TokenGrant, http: HttpClient, now: () => number = Date.now): AuthStrategy {
  const key = JSON.stringify([grant.tokenUrl, grant.form, grant.basic?.clientId]);
  return {
    async apply(request) {
      let token = tokenCache.get(key);
      if (token === undefined || token.expiresAt - EXPIRY_MARGIN_MS <= now()) {
        token = await requestToken(grant, http, now());
        tokenCache.set(key, token);
      }
      request.headers.authorization = `Bearer ${token.accessToken}`;
    },
    refresh() {
      return tokenCache.delete(key);
    },
  };
}

/** Asks a token endpoint for an access token with the grant's form. */
export async function requestToken(grant: TokenGrant, http: HttpClient, now: number): Promise<IssuedToken> {
  let url: URL;
  try {
    url = new URL(grant.tokenUrl);
  } catch {
    throw new SyncFailedError(`The token URL ${grant.tokenUrl} is not a URL`);
  }
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (grant.basic !== undefined) {
    const credentials = `${encodeURIComponent(grant.basic.clientId)}:${encodeURIComponent(grant.basic.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  }
  const response = await http.request({ url, method: 'POST', headers, body: new URLSearchParams(grant.form).toString() });
  const body = response.body as { access_token?: unknown; expires_in?: unknown; refresh_token?: unknown } | null;
  if (typeof body?.access_token !== 'string') throw new SyncFailedError(`The token endpoint ${url.origin}${url.pathname} returned no access_token`);
  const lifetimeSeconds = typeof body.expires_in === 'number' ? body.expires_in : Number(body.expires_in ?? 3600);
  const expiresAt = now + (Number.isFinite(lifetimeSeconds) ? lifetimeSeconds : 3600) * 1000;
  const answer = body as Readonly<Record<string, unknown>>;
  return typeof body.refresh_token === 'string'
    ? { accessToken: body.access_token, expiresAt, refreshToken: body.refresh_token, response: answer }
    : { accessToken: body.access_token, expiresAt, response: answer };
}
