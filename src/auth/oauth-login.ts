import * as client from 'openid-client';
import { decryptSecret, encryptSecret, type ProjectConfig } from '../config/index.ts';
import { InvalidRequestError, NotFoundError, QuarryError } from '../errors.ts';

export const OAUTH_PROVIDERS = ['google', 'github'] as const;
export type OAuthProvider = (typeof OAUTH_PROVIDERS)[number];

const LABELS: Record<OAuthProvider, string> = { google: 'Google', github: 'GitHub' };
const FLOW_LIFETIME_MS = 10 * 60_000;

export class OAuthFailedError extends QuarryError {
  readonly code = 'oauth_failed';
}

export interface OAuthIdentity {
  readonly provider: OAuthProvider;
  readonly subject: string;
  /** Verified addresses, the provider's primary first. */
  readonly emails: readonly string[];
}

interface Flow {
  provider: OAuthProvider;
  state: string;
  verifier: string;
  nonce: string;
  next: string;
  expiresAt: number;
}

/** Login with a Google-type (OpenID Connect) or code-host-type (OAuth 2 + emails API) provider: state, nonce and PKCE. */
export class OAuthLogin {
  readonly #config: ProjectConfig['oauth'];
  readonly #env: Readonly<Record<string, string>>;
  readonly #key: Buffer;
  readonly #now: () => Date;
  readonly #configurations = new Map<OAuthProvider, Promise<client.Configuration>>();

  constructor(options: { config: ProjectConfig['oauth']; env: Readonly<Record<string, string>>; secretKey: Buffer; now: () => Date }) {
    this.#config = options.config;
    this.#env = options.env;
    this.#key = options.secretKey;
    this.#now = options.now;
  }

  /** The configured providers, for the login page's buttons. */
  configured(): { provider: OAuthProvider; label: string }[] {
    return OAUTH_PROVIDERS.filter((provider) => this.#config[provider] !== undefined).map((provider) => ({ provider, label: LABELS[provider] }));
  }

  /** The provider's authorization URL and the sealed flow state the browser carries back in a cookie. */
  async begin(providerName: string, redirectUri: string, next: string): Promise<{ url: URL; sealedFlow: string }> {
    const provider = this.#provider(providerName);
    const configuration = await this.#configuration(provider);
    const flow: Flow = {
      provider, state: client.randomState(), verifier: client.randomPKCECodeVerifier(), nonce: client.randomNonce(), next,
      expiresAt: this.#now().getTime() + FLOW_LIFETIME_MS,
    };
    const parameters: Record<string, string> = {
      redirect_uri: redirectUri,
      scope: provider === 'google' ? 'openid email profile' : 'read:user user:email',
      state: flow.state,
      code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: 'S256',
    };
    if (provider === 'google') parameters.nonce = flow.nonce;
    return { url: client.buildAuthorizationUrl(configuration, parameters), sealedFlow: encryptSecret(JSON.stringify(flow), this.#key) };
  }

  /** Exchanges the callback's code for the user's verified emails; every check failing throws OAuthFailedError. */
  async complete(providerName: string, callbackUrl: URL, sealedFlow: string | undefined): Promise<{ identity: OAuthIdentity; next: string }> {
    const provider = this.#provider(providerName);
    const flow = this.#openFlow(sealedFlow, provider);
    const configuration = await this.#configuration(provider);
    try {
      const tokens = await client.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        ...(provider === 'google' ? { expectedNonce: flow.nonce, idTokenExpected: true } : {}),
      });
      const identity = provider === 'google'
        ? await this.#openIdIdentity(configuration, tokens.access_token, tokens.claims())
        : await this.#githubIdentity(configuration, tokens.access_token);
      return { identity, next: flow.next };
    } catch (error) {
      if (error instanceof QuarryError) throw error;
      throw new OAuthFailedError(`The ${LABELS[provider]} sign-in could not be completed: ${error instanceof Error ? error.message : 'unknown error'}`);
    }
  }

  #provider(name: string): OAuthProvider {
    const provider = OAUTH_PROVIDERS.find((candidate) => candidate === name);
    if (provider === undefined || this.#config[provider] === undefined) throw new NotFoundError(`No OAuth login provider "${name}" is configured`);
    return provider;
  }

  #openFlow(sealed: string | undefined, provider: OAuthProvider): Flow {
    if (sealed === undefined) throw new OAuthFailedError('The sign-in took too long or started in another browser; try again');
    let flow: Flow;
    try {
      flow = JSON.parse(decryptSecret(sealed, this.#key)) as Flow;
    } catch {
      throw new OAuthFailedError('The sign-in state was tampered with; try again');
    }
    if (flow.provider !== provider || flow.expiresAt < this.#now().getTime()) {
      throw new OAuthFailedError('The sign-in took too long or started in another browser; try again');
    }
    return flow;
  }

  /** The ID token's email, or, when a provider keeps it for the UserInfo endpoint, the UserInfo answer for the same subject. */
  async #openIdIdentity(configuration: client.Configuration, accessToken: string, idToken: client.IDToken | undefined): Promise<OAuthIdentity> {
    if (idToken === undefined) throw new OAuthFailedError('The provider sent no ID token');
    const claims: Record<string, unknown> = typeof idToken.email === 'string'
      ? idToken
      : await client.fetchUserInfo(configuration, accessToken, idToken.sub);
    if (typeof claims.email !== 'string' || claims.email_verified !== true) {
      throw new OAuthFailedError('The provider did not vouch for a verified email address');
    }
    return { provider: 'google', subject: idToken.sub, emails: [claims.email] };
  }

  async #githubIdentity(configuration: client.Configuration, accessToken: string): Promise<OAuthIdentity> {
    const settings = this.#config.github;
    if (settings === undefined) throw new InvalidRequestError('github is not configured');
    const api = settings.api_url.replace(/\/+$/, '');
    const headers = new Headers({ accept: 'application/vnd.github+json' });
    const userResponse = await client.fetchProtectedResource(configuration, accessToken, new URL(`${api}/user`), 'GET', undefined, headers);
    const emailsResponse = await client.fetchProtectedResource(configuration, accessToken, new URL(`${api}/user/emails`), 'GET', undefined, headers);
    if (!userResponse.ok || !emailsResponse.ok) throw new OAuthFailedError(`The provider's user API answered ${String(emailsResponse.status)}`);
    const user = await userResponse.json() as { id?: unknown };
    const emails = await emailsResponse.json() as { email?: unknown; verified?: unknown; primary?: unknown }[];
    const verified = emails
      .filter((entry) => entry.verified === true && typeof entry.email === 'string')
      .sort((a, b) => Number(b.primary === true) - Number(a.primary === true))
      .map((entry) => String(entry.email));
    if (verified.length === 0) throw new OAuthFailedError('The provider has no verified email address for you');
    return { provider: 'github', subject: String(user.id), emails: verified };
  }

  #configuration(provider: OAuthProvider): Promise<client.Configuration> {
    let configuration = this.#configurations.get(provider);
    if (configuration === undefined) {
      configuration = this.#createConfiguration(provider);
      configuration.catch(() => this.#configurations.delete(provider));
      this.#configurations.set(provider, configuration);
    }
    return configuration;
  }

  async #createConfiguration(provider: OAuthProvider): Promise<client.Configuration> {
    const settings = this.#config[provider];
    if (settings === undefined) throw new NotFoundError(`No OAuth login provider "${provider}" is configured`);
    const secret = this.#env[settings.client_secret_env];
    if (secret === undefined || secret === '') {
      throw new OAuthFailedError(`${LABELS[provider]} login is not ready: set ${settings.client_secret_env} (run "quarry oauth setup ${provider}")`);
    }
    const loopback = (url: string): boolean => ['localhost', '127.0.0.1', '[::1]'].includes(new URL(url).hostname);
    // Plain HTTP only for a provider on this machine (a local identity server, the tests); never across a network.
    const allowHttp = (configuration: client.Configuration): void => {
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- openid-client marks it so it stands out, which is the point
      client.allowInsecureRequests(configuration);
    };
    if (provider === 'google' && 'issuer' in settings) {
      // discovery() recognises this very function to allow its own first request over HTTP.
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- openid-client marks it so it stands out, which is the point
      const insecure = loopback(settings.issuer) ? { execute: [client.allowInsecureRequests] } : undefined;
      try {
        return await client.discovery(new URL(settings.issuer), settings.client_id, secret, client.ClientSecretPost(secret), insecure);
      } catch (error) {
        throw new OAuthFailedError(`${LABELS[provider]} could not be reached at ${settings.issuer}: ${error instanceof Error ? error.message : 'unknown error'}`);
      }
    }
    if (!('token_url' in settings)) throw new InvalidRequestError(`${provider} settings are incomplete`);
    const configuration = new client.Configuration(
      { issuer: new URL(settings.authorization_url).origin, authorization_endpoint: settings.authorization_url, token_endpoint: settings.token_url },
      settings.client_id, secret, client.ClientSecretPost(secret),
    );
    if (loopback(settings.token_url)) allowHttp(configuration);
    return configuration;
  }
}
