import { decryptSecret, encryptSecret } from '../config/index.ts';
import type { Store } from '../store/index.ts';
import { requestToken } from './rest/auth.ts';
import { requireEnv } from './rest/credentials.ts';
import { HttpClient } from './rest/http-client.ts';
import type { OutboundPolicy } from './outbound/index.ts';
import { SyncFailedError } from './sync-failed-error.ts';

/** An OAuth provider whose tokens sources use, with the scopes its source types read. */
export interface SourceOAuthProvider {
  readonly authorizationUrl: string;
  readonly tokenUrl: string;
  readonly scopes: readonly string[];
  /** Extra parameters of the authorization request (offline access, so a refresh token is issued). */
  readonly authorizationParams: Readonly<Record<string, string>>;
  /** Where `quarry oauth setup` keeps the client secret: in .env, under this name. */
  readonly clientSecretEnv: string;
}

export const SOURCE_OAUTH_PROVIDERS = {
  google: {
    authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    scopes: [
      'https://www.googleapis.com/auth/spreadsheets.readonly',
      'https://www.googleapis.com/auth/analytics.readonly',
      'https://www.googleapis.com/auth/adwords',
    ],
    authorizationParams: { access_type: 'offline', prompt: 'consent' },
    clientSecretEnv: 'QUARRY_GOOGLE_SOURCES_CLIENT_SECRET',
  },
} as const satisfies Record<string, SourceOAuthProvider>;
export type SourceOAuthProviderName = keyof typeof SOURCE_OAUTH_PROVIDERS;

export function isSourceOAuthProvider(name: string): name is SourceOAuthProviderName {
  return Object.hasOwn(SOURCE_OAUTH_PROVIDERS, name);
}

/** What `quarry oauth setup` obtained, kept encrypted with the project key. */
export interface StoredSourceToken {
  readonly accessToken: string;
  readonly refreshToken?: string;
  /** Milliseconds since the epoch; absent when the provider gave no lifetime. */
  readonly expiresAt?: number;
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecretEnv: string;
}

const EXPIRY_MARGIN_MS = 60_000;

/** The source OAuth tokens of a project: saved sealed, handed out valid (refreshed, and the refresh saved, when expired). */
export class SourceTokens {
  readonly #store: Store;
  readonly #secretKey: Buffer;
  readonly #now: () => Date;
  readonly #outbound: OutboundPolicy;

  constructor(options: { store: Store; secretKey: Buffer; now: () => Date; outbound: OutboundPolicy }) {
    this.#store = options.store;
    this.#outbound = options.outbound;
    this.#secretKey = options.secretKey;
    this.#now = options.now;
  }

  async save(provider: SourceOAuthProviderName, token: StoredSourceToken): Promise<void> {
    await this.#store.sourceOAuthTokens.save(provider, encryptSecret(JSON.stringify(token), this.#secretKey), this.#now().toISOString());
  }

  async find(provider: SourceOAuthProviderName): Promise<StoredSourceToken | undefined> {
    const sealed = await this.#store.sourceOAuthTokens.find(provider);
    return sealed === undefined ? undefined : JSON.parse(decryptSecret(sealed, this.#secretKey)) as StoredSourceToken;
  }

  async accessToken(provider: SourceOAuthProviderName, env: Readonly<Record<string, string | undefined>>, signal: AbortSignal): Promise<string> {
    const token = await this.find(provider);
    if (token === undefined) {
      throw new SyncFailedError(`No ${provider} authorization yet: run \`quarry oauth setup ${provider} --for sources\` to grant access`);
    }
    const now = this.#now().getTime();
    if (token.expiresAt === undefined || token.expiresAt - EXPIRY_MARGIN_MS > now) return token.accessToken;
    if (token.refreshToken === undefined) {
      throw new SyncFailedError(`The ${provider} access token expired and there is no refresh token: run \`quarry oauth setup ${provider} --for sources\` again`);
    }
    const clientSecret = requireEnv(env, token.clientSecretEnv, `the ${provider} OAuth client secret`);
    const refreshed = await requestToken({
      tokenUrl: token.tokenUrl,
      form: { grant_type: 'refresh_token', refresh_token: token.refreshToken },
      basic: { clientId: token.clientId, clientSecret },
    }, new HttpClient({ signal, maxAttempts: 3, outbound: this.#outbound }), now);
    await this.save(provider, { ...token, accessToken: refreshed.accessToken, expiresAt: refreshed.expiresAt, refreshToken: refreshed.refreshToken ?? token.refreshToken });
    return refreshed.accessToken;
  }
}
