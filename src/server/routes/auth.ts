import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { InvalidCredentialsError, type LoginResult } from '../../auth/index.ts';
import type { AppContext } from '../../context.ts';
import { SESSION_COOKIE, requireActor, requireAction } from '../plugins/index.ts';
import { safeNextPath } from './safe-next-path.ts';

export const DASHBOARD_COOKIE = 'dashboard.SESSION';

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

const Me = z.object({
  email: z.string(),
  name: z.string(),
  role: z.enum(['admin', 'editor', 'viewer']),
  two_factor_enabled: z.boolean(),
  auth_method: z.enum(['session', 'api_key']),
});

const Success = z.object({ success: z.boolean() });

export const authRoutes: FastifyPluginCallbackZod<{ ctx: AppContext }> = (app, { ctx }, done) => {
  app.post('/api/auth/login', {
    config: { public: true },
    schema: {
      tags: ['auth'],
      summary: 'Password login (JSON, or a form post from /login)',
      security: [],
      body: Credentials,
      response: { 200: LoginReply },
    },
  }, async (request, reply) => {
    const isFormPost = (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    const next = safeNextPath(request.body.next);
    let result: LoginResult;
    try {
      result = await ctx.auth.login(request.body.email, request.body.password, clientOf(request));
    } catch (error) {
      if (isFormPost && error instanceof InvalidCredentialsError) {
        return reply.redirect(`/login?error=invalid_credentials&next=${encodeURIComponent(next)}`, 303);
      }
      throw error;
    }
    reply.setCookie(SESSION_COOKIE, result.token, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: request.protocol === 'https',
      maxAge: Math.floor(ctx.config.auth.session_max_days * 86_400),
    });
    const passwordChangeRequired = result.session.stage === 'password_change';
    const redirect = passwordChangeRequired ? '/settings/change-password' : next;
    if (isFormPost) return reply.redirect(redirect, 303);
    return passwordChangeRequired
      ? { success: true, requires_2fa: false, password_change_required: true, redirect }
      : { success: true, requires_2fa: false, redirect };
  });

  app.post('/api/auth/logout', {
    config: { allowIncompleteSession: true },
    schema: { tags: ['auth'], summary: 'End the current session and its dashboard session', response: { 200: Success } },
  }, async (request, reply) => {
    const actor = requireActor(request);
    if (actor.sessionId !== null) ctx.auth.logout(actor.sessionId);
    clearSessionCookies(reply);
    return { success: true };
  });

  app.get('/api/auth/me', {
    config: { allowIncompleteSession: true },
    preHandler: requireAction('own_account.manage'),
    schema: { tags: ['auth'], summary: 'Who is calling', response: { 200: Me } },
  }, async (request) => {
    const actor = requireActor(request);
    return {
      email: actor.email,
      name: actor.name,
      role: actor.role,
      two_factor_enabled: false,
      auth_method: actor.authMethod,
    };
  });

  done();
};

export function clearSessionCookies(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
  reply.clearCookie(DASHBOARD_COOKIE, { path: '/' });
}

export function clientOf(request: FastifyRequest): { ip: string; userAgent: string } {
  return { ip: request.ip, userAgent: request.headers['user-agent'] ?? '' };
}
