import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { assertCan, type Action, type Actor } from '../../auth/index.ts';
import type { AppContext } from '../../context.ts';
import { ForbiddenError, UnauthenticatedError } from '../../errors.ts';
import type { SessionStage } from '../../store/index.ts';
import { isApiRequest } from './request-kind.ts';

export const SESSION_COOKIE = 'svc_session';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Reachable without credentials: the login page, the login endpoint and the login page's assets. */
    public?: boolean;
    /** Session stages besides `full` that may use the route: a two-factor-pending or password-change-due session. */
    incompleteStages?: readonly ('partial' | 'password_change')[];
  }
  interface FastifyRequest {
    actor: Actor | null;
    sessionStage: SessionStage | null;
  }
}

/** One gate for every route, page, proxy path and socket: nothing is reachable anonymously unless marked public. */
export function installAuthentication(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('actor', null);
  app.decorateRequest('sessionStage', null);

  // A credential resolved since the last credential change is answered from memory, without reading the store;
  // a hook that answers with a redirect returns the reply, so that the request goes no further.
  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config;
    const bearer = bearerToken(request);
    if (bearer !== undefined) {
      const actor = await ctx.auth.actorFromApiKey(bearer);
      if (!actor) throw new UnauthenticatedError('Invalid, expired or revoked API key');
      request.actor = actor;
      request.sessionStage = 'full';
      return;
    }
    const token = request.cookies[SESSION_COOKIE];
    const resolved = token === undefined ? undefined : await ctx.auth.actorFromSessionToken(token);
    if (resolved) {
      request.actor = resolved.actor;
      request.sessionStage = resolved.session.stage;
    }
    if (config.public === true) return;
    if (!resolved) {
      if (isApiRequest(request)) throw new UnauthenticatedError();
      return reply.redirect(`/login?next=${encodeURIComponent(request.url)}`, 303);
    }
    const stage = resolved.session.stage;
    if (stage !== 'full' && config.incompleteStages?.includes(stage) !== true) {
      if (!isApiRequest(request)) {
        return reply.redirect(stage === 'password_change' ? '/settings/change-password' : '/login?step=2fa', 303);
      }
      // A two-factor-pending session is not a login: to the API it is no credential at all.
      if (stage === 'partial') throw new UnauthenticatedError('Finish logging in with your two-factor code first');
      throw new ForbiddenError('Change your password before doing anything else');
    }
  });
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw new UnauthenticatedError('The Authorization header must be "Bearer <API key>"');
  return match[1];
}

/** The caller of an authenticated route; a public route that needs one gets 401. */
export function requireActor(request: FastifyRequest): Actor {
  if (!request.actor) throw new UnauthenticatedError();
  return request.actor;
}

/** A preHandler that lets the request through only when its actor's role grants `action`. */
export function requireAction(action: Action) {
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    assertCan(requireActor(request), action);
    done();
  };
}
