import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { jwtVerify } from 'jose';
import { basicOf, bearerOf } from '../support/fake-api.ts';

export const TOKEN_PATH = '/token';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** A service account's key file, and the public half the fake verifies assertions with. */
export interface ServiceAccount {
  readonly clientEmail: string;
  readonly publicKey: KeyObject;
  /** The JSON a credentials variable holds. */
  readonly keyFile: string;
}

/** Makes a service account with a fresh RSA key whose key file points at `tokenUrl`. */
export function makeServiceAccount(tokenUrl: string, clientEmail = 'loader@quarry-test.iam.gserviceaccount.com'): ServiceAccount {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyFile = JSON.stringify({
    type: 'service_account', project_id: 'quarry-test', private_key_id: 'key-1',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }), client_email: clientEmail,
    client_id: '1234567890', token_uri: tokenUrl,
  });
  return { clientEmail, publicKey, keyFile };
}

/**
 * Google's OAuth 2 token endpoint and its access tokens: refresh-token grants for registered clients,
 * JWT-bearer grants for service accounts (signature, audience and expiry checked), and the bearer
 * check every Google API makes, with Google's error bodies.
 */
export class GoogleOAuth {
  readonly clients = new Map<string, { secret: string; refreshTokens: Set<string> }>();
  readonly serviceAccounts = new Map<string, ServiceAccount>();
  /** Access token → the scopes granted with it. */
  readonly tokens = new Map<string, readonly string[]>();
  issued = 0;
  #tokenUrl = '';

  register(app: FastifyInstance, tokenUrl: () => string): void {
    app.post(TOKEN_PATH, async (request, reply) => {
      this.#tokenUrl = tokenUrl();
      const form = request.body as Record<string, string | undefined>;
      if (form.grant_type === 'refresh_token') return this.#refresh(request, reply, form);
      if (form.grant_type === JWT_BEARER) return await this.#assertion(reply, form.assertion ?? '');
      return reply.code(400).send({ error: 'unsupported_grant_type', error_description: `Invalid grant_type: ${form.grant_type ?? ''}` });
    });
  }

  /** Grants a token directly, as if a user had consented: for seeding stored source tokens. */
  grant(scopes: readonly string[]): string {
    const token = `ya29.${randomUUID()}`;
    this.tokens.set(token, scopes);
    return token;
  }

  /** Answers as Google APIs do when the bearer token is missing, unknown or lacks `scope`; undefined when it is fine. */
  reject(request: FastifyRequest, reply: FastifyReply, scope: string): FastifyReply | undefined {
    const granted = this.tokens.get(bearerOf(request) ?? '');
    if (granted === undefined) {
      return reply.code(401).send({ error: {
        code: 401,
        message: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
        status: 'UNAUTHENTICATED',
      } });
    }
    if (!granted.includes(scope)) {
      return reply.code(403).send({ error: { code: 403, message: 'Request had insufficient authentication scopes.', status: 'PERMISSION_DENIED' } });
    }
    return undefined;
  }

  #refresh(request: FastifyRequest, reply: FastifyReply, form: Record<string, string | undefined>): unknown {
    const basic = basicOf(request);
    const clientId = basic?.user ?? form.client_id ?? '';
    const client = this.clients.get(clientId);
    if (client === undefined || client.secret !== (basic?.password ?? form.client_secret)) {
      return reply.code(401).send({ error: 'invalid_client', error_description: 'The OAuth client was not found.' });
    }
    if (!client.refreshTokens.has(form.refresh_token ?? '')) {
      return reply.code(400).send({ error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
    }
    return this.#issue(['https://www.googleapis.com/auth/spreadsheets.readonly', 'https://www.googleapis.com/auth/analytics.readonly', 'https://www.googleapis.com/auth/adwords']);
  }

  async #assertion(reply: FastifyReply, assertion: string): Promise<unknown> {
    const invalid = (description: string) => reply.code(400).send({ error: 'invalid_grant', error_description: description });
    const [encodedHeader = ''] = assertion.split('.');
    let issuer: unknown;
    try {
      issuer = (JSON.parse(Buffer.from(assertion.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iss?: unknown }).iss;
      JSON.parse(Buffer.from(encodedHeader, 'base64url').toString('utf8'));
    } catch {
      return invalid('Invalid JWT: Token must be a short-lived token and in a reasonable timeframe');
    }
    const account = this.serviceAccounts.get(String(issuer));
    if (account === undefined) return invalid('Invalid grant: account not found');
    const verified = await jwtVerify(assertion, account.publicKey, { algorithms: ['RS256'], audience: this.#tokenUrl, maxTokenAge: '1h' })
      .catch(() => undefined);
    if (verified === undefined) return invalid('Invalid JWT Signature.');
    const scope = verified.payload.scope;
    if (typeof scope !== 'string' || scope === '') return invalid('Invalid JWT: scope is missing');
    return this.#issue(scope.split(' '));
  }

  #issue(scopes: readonly string[]): unknown {
    this.issued += 1;
    return { access_token: this.grant(scopes), expires_in: 3599, scope: scopes.join(' '), token_type: 'Bearer' };
  }
}
