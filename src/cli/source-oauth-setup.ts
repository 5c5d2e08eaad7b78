import http from 'node:http';
import * as client from 'openid-client';
import { loadEnvironment, projectPaths, setEnvValue } from '../config/index.ts';
import { isSourceOAuthProvider, SOURCE_OAUTH_PROVIDERS } from '../sources/index.ts';
import { CliError } from './cli-error.ts';
import { isInteractive, valueOrPrompt } from './prompt-or-flag.ts';
import { withProject } from './with-project.ts';
import { describeError } from '../errors.ts';

export interface SourceOAuthSetupOptions {
  project: string;
  clientId?: string;
  clientSecret?: string;
  authorizationUrl?: string;
  tokenUrl?: string;
  /** The loopback port of the redirect listener; 0 (the default) picks a free one. */
  port?: number;
  nonInteractive?: boolean;
  /** How long to wait for the browser to come back. */
  timeoutSeconds?: number;
}

const PAGE = (title: string, text: string): string =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;margin:3rem"><h1>${title}</h1><p>${text}</p></body>`;

/**
 * `quarry oauth setup <provider> --for sources`: the OAuth 2 authorization-code flow (with PKCE) through a
 * browser and a listener on loopback, for the source types that read a provider's APIs. The tokens are stored
 * sealed in the platform database and refreshed by syncs when they expire; the client secret goes to .env.
 */
export async function setupSourceOAuth(
  name: string, options: SourceOAuthSetupOptions, env: NodeJS.ProcessEnv, print: (line: string) => void,
): Promise<string> {
  if (!isSourceOAuthProvider(name)) {
    throw new CliError(`Unknown source OAuth provider "${name}": choose ${Object.keys(SOURCE_OAUTH_PROVIDERS).join(', ')}`);
  }
  const provider = SOURCE_OAUTH_PROVIDERS[name];
  const paths = projectPaths(options.project);
  const projectEnv = loadEnvironment(paths, env);
  const interactive = isInteractive(options.nonInteractive);
  const clientId = await valueOrPrompt(options.clientId, { flag: '--client-id', message: `${name} OAuth client id`, interactive });
  const clientSecret = await valueOrPrompt(options.clientSecret ?? projectEnv[provider.clientSecretEnv], {
    flag: '--client-secret', message: `${name} OAuth client secret`, interactive, secret: true,
  });
  const tokenUrl = options.tokenUrl ?? provider.tokenUrl;
  const authorizationUrl = options.authorizationUrl ?? provider.authorizationUrl;
  const configuration = new client.Configuration(
    { issuer: new URL(authorizationUrl).origin, authorization_endpoint: authorizationUrl, token_endpoint: tokenUrl },
    clientId, clientSecret, client.ClientSecretPost(clientSecret),
  );
  if (['localhost', '127.0.0.1', '[::1]'].includes(new URL(tokenUrl).hostname)) {
    // Plain HTTP only for a provider on this machine (a local authorization server, the tests).
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- openid-client marks it so it stands out, which is the point
    client.allowInsecureRequests(configuration);
  }

  const state = client.randomState();
  const verifier = client.randomPKCECodeVerifier();
  const listener = await listen(options.port ?? 0);
  try {
    const redirectUri = `http://127.0.0.1:${String(listener.port)}/callback`;
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri, scope: provider.scopes.join(' '), state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
      ...provider.authorizationParams,
    });
    print(`Open this address in a browser signed in to the ${name} account whose data Quarry should read:\n${url.href}`);
    print(`Waiting for the browser to come back to ${redirectUri} ...`);
    const tokens = await listener.waitForCode(options.timeoutSeconds ?? 300, async (callbackUrl) => {
      const error = callbackUrl.searchParams.get('error');
      if (error !== null) throw new CliError(`${name} refused the authorization: ${error}`);
      return client.authorizationCodeGrant(configuration, callbackUrl, { pkceCodeVerifier: verifier, expectedState: state });
    }, redirectUri);
    setEnvValue(paths, provider.clientSecretEnv, clientSecret);
    await withProject(options.project, env, async (ctx) => {
      await ctx.sourceTokens.save(name, {
        accessToken: tokens.access_token,
        ...(tokens.refresh_token === undefined ? {} : { refreshToken: tokens.refresh_token }),
        ...(tokens.expires_in === undefined ? {} : { expiresAt: ctx.now().getTime() + tokens.expires_in * 1000 }),
        tokenUrl, clientId, clientSecretEnv: provider.clientSecretEnv,
      });
    });
    const refresh = tokens.refresh_token === undefined ? ' No refresh token was issued: run this again when the access token expires.' : '';
    return `Quarry can now read ${name} data for the sources that use it (token stored encrypted; client secret in ${paths.envFile}).${refresh}`;
  } finally {
    await listener.close();
  }
}

interface Listener {
  readonly port: number;
  waitForCode<T>(timeoutSeconds: number, exchange: (callbackUrl: URL) => Promise<T>, redirectUri: string): Promise<T>;
  close(): Promise<void>;
}

/** A one-shot HTTP listener on loopback for the provider's redirect. */
async function listen(port: number): Promise<Listener> {
  let onCallback: ((request: http.IncomingMessage, response: http.ServerResponse) => void) | undefined;
  const server = http.createServer((request, response) => {
    if (onCallback === undefined || !request.url?.startsWith('/callback')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    onCallback(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new CliError('The redirect listener has no port');
  return {
    port: address.port,
    waitForCode: (timeoutSeconds, exchange, redirectUri) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => { reject(new CliError(`No answer from the browser within ${String(timeoutSeconds)} s; run the command again`)); }, timeoutSeconds * 1000);
      onCallback = (request, response) => {
        onCallback = undefined;
        const callbackUrl = new URL(request.url ?? '/', redirectUri);
        exchange(callbackUrl).then((tokens) => {
          response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE('Quarry has access', 'You can close this tab and return to the terminal.'));
          clearTimeout(timer);
          resolve(tokens);
        }, (error: unknown) => {
          response.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE('Authorization failed', 'See the terminal for the reason.'));
          clearTimeout(timer);
          reject(error instanceof CliError ? error : new CliError(`the token exchange failed: ${describeError(error)}`));
        });
      };
    }),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => { resolve(); });
    }),
  };
}
