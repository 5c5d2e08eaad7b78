import http from 'node:http';
import Provider from 'oidc-provider';

export interface IdentityProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Registers Quarry's callback URLs; call once Quarry's port is known. */
  start(redirectUris: string[]): void;
  close(): Promise<void>;
}

export interface ProviderAccount {
  readonly email: string;
  readonly emailVerified: boolean;
  /** Extra addresses the code-host emails API lists. */
  readonly otherEmails?: readonly string[];
}

/**
 * A real OpenID Connect / OAuth 2 authorization server (oidc-provider) on loopback, with its development
 * login form (any password; the login name is the account id), plus the code-host-style `/api/user` and
 * `/api/user/emails` endpoints, answered for the account behind a valid access token.
 */
export async function startIdentityProvider(accounts: Record<string, ProviderAccount>): Promise<IdentityProvider> {
  let provider: Provider | undefined;
  const server = http.createServer((request, response) => {
    void handle(request, response);
  });

  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    if (!provider) {
      response.writeHead(503).end();
      return;
    }
    if (request.url === '/api/user' || request.url === '/api/user/emails') {
      const token = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
      const accessToken = token === undefined ? undefined : await provider.AccessToken.find(token);
      const account = accessToken === undefined ? undefined : accounts[accessToken.accountId];
      if (accessToken === undefined || account === undefined) {
        response.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"Bad credentials"}');
        return;
      }
      const body = request.url === '/api/user'
        ? { id: accessToken.accountId.length * 1000 + 7, login: accessToken.accountId }
        : [
            { email: account.email, primary: true, verified: account.emailVerified },
            ...(account.otherEmails ?? []).map((email) => ({ email, primary: false, verified: true })),
          ];
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      return;
    }
    await provider.callback()(request, response);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  const issuer = `http://127.0.0.1:${String(address.port)}`;
  const clientId = 'quarry-test';
  const clientSecret = 'quarry-test-client-secret-0123456789';

  return {
    issuer, clientId, clientSecret,
    start(redirectUris) {
      provider = new Provider(issuer, {
        clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: redirectUris, token_endpoint_auth_method: 'client_secret_post' }],
        scopes: ['openid', 'email', 'profile', 'offline_access', 'read:user', 'user:email'],
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
        pkce: { required: () => true },
        findAccount: (_context, id) => {
          const account = accounts[id];
          if (account === undefined) return undefined;
          return { accountId: id, claims: () => ({ sub: id, email: account.email, email_verified: account.emailVerified, name: id }) };
        },
        loadExistingGrant: async (context) => {
          // Consent is implied: the test is about Quarry's side of the flow.
          const client = context.oidc.client;
          const session = context.oidc.session;
          if (!client || !session?.accountId) return undefined;
          const grant = new context.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
          grant.addOIDCScope('openid email profile read:user user:email');
          await grant.save();
          return grant;
        },
      });
      provider.proxy = false;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => { resolve(); }));
    },
  };
}
