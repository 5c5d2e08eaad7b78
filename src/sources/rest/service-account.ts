import { createPrivateKey, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { SyncFailedError } from '../sync-failed-error.ts';
import { requestToken, type AuthStrategy, type IssuedToken } from './auth.ts';
import type { HttpClient } from './http-client.ts';

/** RFC 7523's grant type: an access token in exchange for a JWT the client signed. */
export const JWT_BEARER_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

const EXPIRY_MARGIN_MS = 60_000;

/** The claims of a service account's signed assertion and where it is exchanged, as Google and Salesforce issue them. */
export interface JwtBearerGrant {
  readonly tokenUrl: string;
  /** PEM (PKCS #8 or PKCS #1), as key files hold it. */
  readonly privateKey: string;
  /** Names the signing key in the JWT header (Google's `private_key_id`). */
  readonly keyId?: string;
  readonly issuer: string;
  readonly subject?: string;
  readonly audience: string;
  /** Space-separated scopes, for providers that take them in the assertion. */
  readonly scope?: string;
  /** What the key is, for messages: "the service-account key in ANALYTICS_CREDENTIALS". */
  readonly describedAs: string;
}

/** Credentials that can also hand out the token itself, with the token endpoint's whole answer. */
export interface ServiceAccountAuth extends AuthStrategy {
  token(): Promise<IssuedToken>;
}

/**
 * A bearer token from a JWT-bearer grant: an RS256 assertion signed with the service account's key,
 * exchanged at the token endpoint, kept until a minute before it expires and fetched again after a 401.
 */
export function jwtBearerAuth(grant: JwtBearerGrant, http: HttpClient, now: () => number = Date.now): ServiceAccountAuth {
  const key = privateKeyOf(grant);
  let current: IssuedToken | undefined;
  const token = async (): Promise<IssuedToken> => {
    if (current === undefined || current.expiresAt - EXPIRY_MARGIN_MS <= now()) {
      const assertion = await signAssertion(grant, key, now());
      current = await requestToken({ tokenUrl: grant.tokenUrl, form: { grant_type: JWT_BEARER_GRANT_TYPE, assertion } }, http, now());
    }
    return current;
  };
  return {
    token,
    async apply(request) {
      request.headers.authorization = `Bearer ${(await token()).accessToken}`;
    },
    refresh() {
      const hadToken = current !== undefined;
      current = undefined;
      return hadToken;
    },
  };
}

function privateKeyOf(grant: JwtBearerGrant): KeyObject {
  try {
    return createPrivateKey(grant.privateKey);
  } catch {
    throw new SyncFailedError(`The private key of ${grant.describedAs} is not a PEM private key`);
  }
}

async function signAssertion(grant: JwtBearerGrant, key: KeyObject, nowMs: number): Promise<string> {
  const issuedAt = Math.floor(nowMs / 1000);
  const claims = grant.scope === undefined ? {} : { scope: grant.scope };
  const jwt = new SignJWT(claims)
    .setProtectedHeader(grant.keyId === undefined ? { alg: 'RS256', typ: 'JWT' } : { alg: 'RS256', typ: 'JWT', kid: grant.keyId })
    .setIssuer(grant.issuer)
    .setAudience(grant.audience)
    .setIssuedAt(issuedAt)
    // Salesforce accepts at most three minutes, Google at most an hour: the shorter fits both.
    .setExpirationTime(issuedAt + 180);
  if (grant.subject !== undefined) jwt.setSubject(grant.subject);
  return jwt.sign(key);
}
