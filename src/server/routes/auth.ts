import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { InvalidCredentialsError, type NewSession } from '../../auth/index.ts';
import type { AppContext } from '../../context.ts';
import type { DashboardBridge } from '../../dashboard/index.ts';
import { endSessions, openDashboardSession } from './dashboard.ts';
import { requireActor, requireAction } from '../plugins/index.ts';
import { safeNextPath } from './safe-next-path.ts';
import { clearSessionCookies, clientOf, setSessionCookie } from './session-cookie.ts';

const Credentials = z.object({
  email: z.string().min(1).max(320),
  password: z.string().min(1).max(4096),
  next: z.string().max(2048).optional(),
});

const LoginReply = z.object({
  success: z.boolean(),
  requires_2fa: z.boolean(),
  redirect: z.string().optional(),
  password_change_required: z.boolean().optional(),
});

const Code = z.object({ code: z.string().min(1).max(12), next: z.string().max(2048).optional() });

const Me = z.object({
  email: z.string(),
  name: z.string(),
  role: z.enum(['admin', 'editor', 'viewer']),
  two_factor_enabled: z.boolean(),
  auth_method: z.enum(['session', 'api_key']),
});

const Success = z.object({ success: z.boolean() });

export const CHANGE_PASSWORD_PAGE = '/settings/change-password';

/** The reply to a step of logging in: where the session stands and where the browser goes next. */
function loginReply(created: NewSession, next: string): z.infer<typeof LoginReply> {
  switch (created.session.stage) {
    case 'partial': return { success: true, requires_2fa: true };
    case 'password_change': return { success: true, requires_2fa: false, password_change_required: true, redirect: CHANGE_PASSWORD_PAGE };
    case 'full': return { success: true, requires_2fa: false, redirect: next };
  }
}

export const authRoutes: FastifyPluginCallbackZod<{ ctx: AppContext; dashboard?: DashboardBridge }> = (app, { ctx, dashboard }, done) => {
  app.post('/api/auth/login', {
    config: { public: true, loginRateLimit: true, bodyTypes: ['form'] },
    schema: {
      tags: ['auth'],
      summary: 'Password login (JSON, or a form post from /login)',
      security: [],
      consumes: ['application/json', 'application/x-www-form-urlencoded'],
      body: Credentials,
      response: {
        200: LoginReply,
        303: z.null().describe('A form post: on to the page the login leads to, or back to /login with the error (in Location)'),
      },
    },
  }, async (request, reply) => {
    const isFormPost = (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    const next = safeNextPath(request.body.next);
    let created: NewSession;
    try {
      created = await ctx.auth.login(request.body.email, request.body.password, clientOf(request));
    } catch (error) {
      if (isFormPost && error instanceof InvalidCredentialsError) {
        return reply.redirect(`/login?error=invalid_credentials&next=${encodeURIComponent(next)}`, 303);
      }
      throw error;
    }
    // A session the browser already held is replaced, never reused (no fixation).
    if (request.actor?.sessionId != null) await ctx.auth.logout(request.actor, clientOf(request));
    setSessionCookie(ctx, request, reply, created.token);
    if (created.session.stage === 'full') await openDashboardSession(ctx, dashboard, request, reply, created.session.userId);
    const body = loginReply(created, next);
    if (isFormPost) return reply.redirect(body.requires_2fa ? `/login?step=2fa&next=${encodeURIComponent(next)}` : body.redirect ?? next, 303);
    return body;
  });

  app.post('/api/auth/2fa/verify', {
    config: { incompleteStages: ['partial'], loginRateLimit: true },
    schema: { tags: ['auth'], summary: 'Finish a two-factor login with a TOTP code (the 5th wrong code ends the login)', body: Code, response: { 200: LoginReply } },
  }, async (request, reply) => {
    const actor = requireActor(request);
    const created = await ctx.auth.verifyTwoFactor(actor, request.body.code, clientOf(request));
    setSessionCookie(ctx, request, reply, created.token);
    if (created.session.stage === 'full') await openDashboardSession(ctx, dashboard, request, reply, actor.userId);
    return loginReply(created, safeNextPath(request.body.next));
  });

  app.post('/api/auth/logout', {
    config: { incompleteStages: ['partial', 'password_change'] },
    schema: { tags: ['auth'], summary: 'End the current session and its dashboard session', response: { 200: Success } },
  }, async (request, reply) => {
    const actor = requireActor(request);
    await endSessions(ctx, dashboard, request);
    if (actor.sessionId !== null) request.server.websocketHub.closeSession(actor.sessionId);
    clearSessionCookies(reply);
    return { success: true };
  });

  app.get('/api/auth/me', {
    config: { incompleteStages: ['password_change'] },
    preHandler: requireAction('own_account.manage'),
    schema: { tags: ['auth'], summary: 'Who is calling', response: { 200: Me } },
  }, async (request) => {
    const actor = requireActor(request);
    const user = await ctx.auth.user(actor);
    return {
      email: user.email,
      name: user.name,
      role: user.role,
      two_factor_enabled: user.totpEnabled,
      auth_method: actor.authMethod,
    };
  });

  done();
};
