import { OAUTH_PROVIDERS, type OAuthProvider } from '../auth/index.ts';
import { loadProjectConfig, projectPaths, setEnvValue, setProjectSetting } from '../config/index.ts';
import { CliError } from './cli-error.ts';
import { isInteractive, valueOrPrompt } from './prompt-or-flag.ts';

export interface OAuthSetupOptions {
  project: string;
  clientId?: string;
  clientSecret?: string;
  issuer?: string;
  authorizationUrl?: string;
  tokenUrl?: string;
  apiUrl?: string;
  nonInteractive?: boolean;
}

const SECRET_ENV: Record<OAuthProvider, string> = { google: 'QUARRY_GOOGLE_CLIENT_SECRET', github: 'QUARRY_GITHUB_CLIENT_SECRET' };

/** Configures an OAuth login provider: the client id in project.yml, the secret in .env (never in project.yml). */
export async function setupOAuthProvider(name: string, options: OAuthSetupOptions, env: NodeJS.ProcessEnv): Promise<string> {
  const provider = OAUTH_PROVIDERS.find((candidate) => candidate === name);
  if (provider === undefined) {
    throw new CliError(`Unknown login provider "${name}": choose ${OAUTH_PROVIDERS.join(' or ')} (source providers are set up with the source wizard)`);
  }
  const paths = projectPaths(options.project);
  const config = loadProjectConfig(paths);
  const interactive = isInteractive(options.nonInteractive);
  const clientId = await valueOrPrompt(options.clientId, { flag: '--client-id', message: 'OAuth client id', interactive });
  const clientSecret = await valueOrPrompt(options.clientSecret ?? env[SECRET_ENV[provider]], {
    flag: '--client-secret', message: 'OAuth client secret', interactive, secret: true,
  });
  const settings: Record<string, string> = { client_id: clientId, client_secret_env: SECRET_ENV[provider] };
  if (provider === 'google' && options.issuer !== undefined) settings.issuer = options.issuer;
  if (provider === 'github') {
    if (options.authorizationUrl !== undefined) settings.authorization_url = options.authorizationUrl;
    if (options.tokenUrl !== undefined) settings.token_url = options.tokenUrl;
    if (options.apiUrl !== undefined) settings.api_url = options.apiUrl;
  }
  setProjectSetting(paths, ['oauth', provider], settings);
  setEnvValue(paths, SECRET_ENV[provider], clientSecret);
  const base = config.web.public_url?.replace(/\/+$/, '') ?? `http://${config.web.host}:${String(config.web.port)}`;
  return [
    `${provider} login is configured (client secret stored in ${paths.envFile}).`,
    `Register this callback URL with the provider: ${base}/auth/oauth/${provider}/callback`,
    'Restart Quarry to show the button on the login page. OAuth login never creates accounts: add users first.',
  ].join('\n');
}
