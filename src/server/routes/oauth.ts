import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { OAuthFailedError } from '../../auth/index.ts';
import type { AppContext } from '../../context.ts';
import { safeNextPath } from './safe-next-path.ts';
import { clientOf, cookiesAreSecure, setSessionCookie } from './session-cookie.ts';

const FLOW_COOKIE = 'quarry_oauth_flow';
const Params = z.object({ provider: z.string().min(1).max(32) });

/** OAuth login: start sends the browser to the provider, callback signs in an existing user or explains why not. */
export const oauthRoutes: FastifyPluginCallbackZod<{ ctx: AppContext }> = (app, { ctx }, done) => {
  const hidden = { hide: true };
  const callbackUrl = (base: string, provider: string): string => `${base}/auth/oauth/${provider}/callback`;
  const baseOf = (request: { protocol: string; host: string }): string => ctx.config.web.public_url?.replace(/\/+$/, '') ?? `${request.protocol}://${request.host}`;

  app.get('/auth/oauth/:provider/start', {
    config: { public: true },
    schema: { ...hidden, params: Params, querystring: z.object({ next: z.string().max(2048).optional() }) },
  }, async (request, reply) => {
    const base = baseOf(request);
    let begun;
    try {
      begun = await ctx.oauth.begin(request.params.provider, callbackUrl(base, request.params.provider), safeNextPath(request.query.next));
    } catch (error) {
      if (!(error instanceof OAuthFailedError)) throw error;
      request.log.warn({ provider: request.params.provider, reason: error.message }, 'oauth login could not start');
      return reply.redirect('/login?error=oauth_failed', 303);
    }
    const { url, sealedFlow } = begun;
    reply.setCookie(FLOW_COOKIE, sealedFlow, {
      path: '/auth/oauth/', httpOnly: true, sameSite: 'lax', secure: cookiesAreSecure(ctx, request), maxAge: 600,
    });
    return reply.redirect(url.href, 303);
  });

  app.get('/auth/oauth/:provider/callback', {
    config: { public: true },
    schema: { ...hidden, params: Params },
  }, async (request, reply) => {
    reply.clearCookie(FLOW_COOKIE, { path: '/auth/oauth/' });
    const current = new URL(request.url, baseOf(request));
    let identity;
    let next: string;
    try {
      ({ identity, next } = await ctx.oauth.complete(request.params.provider, current, request.cookies[FLOW_COOKIE]));
    } catch (error) {
      if (!(error instanceof OAuthFailedError)) throw error;
      request.log.warn({ provider: request.params.provider, reason: error.message }, 'oauth login failed');
      return reply.redirect('/login?error=oauth_failed', 303);
    }
    for (const email of identity.emails) {
      const created = await ctx.auth.loginWithOAuth({ email, subject: identity.subject, provider: identity.provider }, clientOf(request));
      if (created) {
        setSessionCookie(ctx, request, reply, created.token);
        return reply.redirect(safeNextPath(next), 303);
      }
    }
    return reply.redirect('/login?error=oauth_no_account', 303);
  });

  done();
};
