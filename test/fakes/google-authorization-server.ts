import { createHash, randomBytes } from 'node:crypto';
import { basicOf, startFakeApi, type FakeApi } from '../support/fake-api.ts';

export interface FakeGoogleOAuth {
  readonly api: FakeApi;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly authorizationUrl: string;
  readonly tokenUrl: string;
  /** Access tokens handed out so far, newest last. */
  readonly issued: string[];
}

/**
 * Google's OAuth 2 server as an installed app meets it: the authorization endpoint (the signed-in user
 * consents at once) redirects to the loopback redirect URI with a code; the token endpoint exchanges
 * the code (checking the client, the redirect URI and the PKCE verifier) and refresh tokens.
 */
export async function startFakeGoogleOAuth(lifetimeSeconds = 3599): Promise<FakeGoogleOAuth> {
  const clientId = '1234-fake.apps.googleusercontent.com';
  const clientSecret = 'GOCSPX-fake-secret';
  const codes = new Map<string, { redirectUri: string; challenge: string; scope: string }>();
  const refreshTokens = new Set<string>();
  const issued: string[] = [];
  const token = (prefix: string): string => `${prefix}${randomBytes(12).toString('base64url')}`;
  const api = await startFakeApi((app) => {
    app.get('/o/oauth2/v2/auth', (request, reply) => {
      const query = request.query as Record<string, string | undefined>;
      if (query.client_id !== clientId || query.response_type !== 'code' || query.code_challenge_method !== 'S256' || query.code_challenge === undefined) {
        return reply.code(400).send('Error 400: invalid_request');
      }
      const code = token('4/0A');
      codes.set(code, { redirectUri: query.redirect_uri ?? '', challenge: query.code_challenge, scope: query.scope ?? '' });
      const target = new URL(query.redirect_uri ?? '');
      target.searchParams.set('code', code);
      target.searchParams.set('state', query.state ?? '');
      target.searchParams.set('scope', query.scope ?? '');
      return reply.redirect(target.href, 302);
    });
    app.post('/token', (request, reply) => {
      const form = request.body as Record<string, string | undefined>;
      const basic = basicOf(request); // Google takes the client's credentials in the form or as HTTP Basic
      const client = basic === undefined ? { id: form.client_id, secret: form.client_secret } : { id: decodeURIComponent(basic.user), secret: decodeURIComponent(basic.password) };
      if (client.id !== clientId || client.secret !== clientSecret) {
        return reply.code(401).send({ error: 'invalid_client', error_description: 'The OAuth client was not found.' });
      }
      const access = token('ya29.');
      if (form.grant_type === 'authorization_code') {
        const grant = codes.get(form.code ?? '');
        codes.delete(form.code ?? '');
        const challenge = createHash('sha256').update(form.code_verifier ?? '').digest('base64url');
        if (grant === undefined || grant.redirectUri !== form.redirect_uri || grant.challenge !== challenge) {
          return reply.code(400).send({ error: 'invalid_grant', error_description: 'Bad Request' });
        }
        const refresh = token('1//0g');
        refreshTokens.add(refresh);
        issued.push(access);
        return { access_token: access, expires_in: lifetimeSeconds, refresh_token: refresh, scope: grant.scope, token_type: 'Bearer' };
      }
      if (form.grant_type === 'refresh_token' && refreshTokens.has(form.refresh_token ?? '')) {
        issued.push(access);
        return { access_token: access, expires_in: lifetimeSeconds, token_type: 'Bearer' };
      }
      return reply.code(400).send({ error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
    });
  });
  return { api, clientId, clientSecret, authorizationUrl: `${api.url}/o/oauth2/v2/auth`, tokenUrl: `${api.url}/token`, issued };
}
