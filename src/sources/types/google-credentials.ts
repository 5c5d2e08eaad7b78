import { z } from 'zod';
import type { ExtractContext } from '../connector.ts';
import { jwtBearerAuth, oauthTokenAuth, requireJsonEnv, type AuthStrategy, type HttpClient } from '../rest/index.ts';

const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/** A key file as the Cloud console issues it for a service account. */
const ServiceAccountKey = z.object({
  type: z.literal('service_account'),
  client_email: z.string().min(1),
  private_key: z.string().min(1),
  private_key_id: z.string().optional(),
  project_id: z.string().optional(),
  token_uri: z.url().optional(),
});

/** What `gcloud auth application-default login` writes: a user's refresh token and the client it was granted to. */
const AuthorizedUser = z.object({
  type: z.literal('authorized_user'),
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
  refresh_token: z.string().min(1),
  token_uri: z.url().optional(),
});

const GoogleCredentials = z.discriminatedUnion('type', [ServiceAccountKey, AuthorizedUser]);
type GoogleCredentials = z.output<typeof GoogleCredentials>;

export interface GoogleAuthOptions {
  readonly env: ExtractContext['env'];
  /** The variable holding the JSON credentials. */
  readonly credentialsEnv: string;
  readonly scope: string;
  readonly http: HttpClient;
  /** Where the token comes from when the variable is unset: `quarry oauth setup google`; absent means the variable is required. */
  readonly oauthAccessToken?: ExtractContext['oauthAccessToken'];
}

/** The JSON credentials a variable holds, checked; the message names the variable, never its content. */
export function readGoogleCredentials(env: ExtractContext['env'], name: string): GoogleCredentials {
  return requireJsonEnv(env, name, 'a Google service-account key (JSON) or authorized_user credentials', GoogleCredentials);
}

/**
 * Credentials for a Google API: a service-account key or a user's refresh token from the named
 * variable, else the token `quarry oauth setup google --for sources` stored.
 */
export function googleAuth(options: GoogleAuthOptions): AuthStrategy {
  const { env, credentialsEnv, oauthAccessToken } = options;
  const unset = (env[credentialsEnv] ?? '').trim() === '';
  if (unset && oauthAccessToken !== undefined) return googleOAuthBearer(oauthAccessToken);
  const credentials = readGoogleCredentials(env, credentialsEnv);
  const tokenUrl = credentials.token_uri ?? GOOGLE_TOKEN_URL;
  if (credentials.type === 'authorized_user') {
    return oauthTokenAuth({
      tokenUrl,
      form: {
        grant_type: 'refresh_token', refresh_token: credentials.refresh_token,
        client_id: credentials.client_id, client_secret: credentials.client_secret,
      },
    }, options.http);
  }
  return jwtBearerAuth({
    tokenUrl, audience: tokenUrl, privateKey: credentials.private_key, keyId: credentials.private_key_id,
    issuer: credentials.client_email, scope: options.scope, describedAs: `the service-account key in ${credentialsEnv}`,
  }, options.http);
}

/** The bearer token `quarry oauth setup google --for sources` stored, refreshed when it expired. */
export function googleOAuthBearer(oauthAccessToken: ExtractContext['oauthAccessToken']): AuthStrategy {
  return {
    async apply(request) {
      request.headers.authorization = `Bearer ${await oauthAccessToken('google')}`;
    },
  };
}
