import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MIN_PASSWORD_LENGTH } from '../../auth/index.ts';
import type { AppContext } from '../../context.ts';
import { requireActor, requireAction } from '../plugins/index.ts';
import { clientOf, setSessionCookie } from './session-cookie.ts';
import { SESSION_ONLY } from './session-only.ts';

const SessionEntry = z.object({
  id: z.string(),
  created_at: z.string(),
  last_seen_at: z.string(),
  ip: z.string(),
  user_agent: z.string(),
  current: z.boolean(),
});

const SessionParams = z.object({ id: z.string().min(1).max(64) });
// `.meta` documents what auth/ accepts without validating it here, so a refusal keeps auth's own code (weak_password, invalid_totp_code).
const PasswordChange = z.object({
  current_password: z.string().min(1).max(4096),
  new_password: z.string().min(1).max(4096).meta({ minLength: MIN_PASSWORD_LENGTH }),
  revoke_api_keys: z.boolean().default(false).describe('revoke every API key of the account too'),
});
const Code = z.object({ code: z.string().min(1).max(12).meta({ pattern: '^[0-9]{6}$', description: 'the six digits the authenticator app shows now' }) });
const Enrollment = z.object({ secret: z.string(), otpauth_uri: z.string(), qr_svg: z.string() });
const Success = z.object({ success: z.boolean() });

/** The caller's own account: sessions, password, two-factor enrollment. */
export const accountRoutes: FastifyPluginCallbackZod<{ ctx: AppContext }> = (app, { ctx }, done) => {
  const ownAccount = requireAction('own_account.manage');

  app.get('/api/auth/sessions', {
    preHandler: ownAccount,
    schema: { tags: ['account'], summary: "The caller's signed-in sessions", response: { 200: z.array(SessionEntry) } },
  }, async (request) => {
    const actor = requireActor(request);
    return (await ctx.auth.listSessions(actor)).map((session) => ({
      id: session.id,
      created_at: session.createdAt,
      last_seen_at: session.lastSeenAt,
      ip: session.ip,
      user_agent: session.userAgent,
      current: session.id === actor.sessionId,
    }));
  });

  app.delete('/api/auth/sessions/:id', {
    preHandler: ownAccount,
    schema: { tags: ['account'], summary: 'Sign out one session', security: SESSION_ONLY, params: SessionParams, response: { 200: Success } },
  }, async (request) => {
    await ctx.auth.endSession(requireActor(request), request.params.id);
    return { success: true };
  });

  app.delete('/api/auth/sessions', {
    preHandler: ownAccount,
    schema: { tags: ['account'], summary: 'Sign out every other session', security: SESSION_ONLY, response: { 200: z.object({ success: z.boolean(), ended: z.number().int() }) } },
  }, async (request) => ({ success: true, ended: await ctx.auth.endOtherSessions(requireActor(request)) }));

  app.post('/api/auth/password', {
    config: { incompleteStages: ['password_change'], loginRateLimit: true },
    preHandler: ownAccount,
    schema: { tags: ['account'], summary: 'Change the password (other sessions are signed out; API keys too with revoke_api_keys)', security: SESSION_ONLY, body: PasswordChange, response: { 200: Success } },
  }, async (request, reply) => {
    const { current_password: currentPassword, new_password: newPassword, revoke_api_keys: revokeApiKeys } = request.body;
    const renewed = await ctx.auth.changePassword(requireActor(request), { currentPassword, newPassword, revokeApiKeys }, clientOf(request));
    setSessionCookie(ctx, request, reply, renewed.token);
    return { success: true };
  });

  app.post('/api/auth/2fa/setup', {
    preHandler: ownAccount,
    schema: { tags: ['account'], summary: 'Start two-factor enrollment: a new secret and its QR code', security: SESSION_ONLY, response: { 200: Enrollment } },
  }, async (request) => {
    const enrollment = await ctx.auth.setupTwoFactor(requireActor(request));
    return { secret: enrollment.secret, otpauth_uri: enrollment.otpauthUri, qr_svg: enrollment.qrSvg };
  });

  app.post('/api/auth/2fa/enable', {
    config: { loginRateLimit: true },
    preHandler: ownAccount,
    schema: { tags: ['account'], summary: 'Turn two-factor on by confirming a code', security: SESSION_ONLY, body: Code, response: { 200: Success } },
  }, async (request) => {
    await ctx.auth.enableTwoFactor(requireActor(request), request.body.code);
    return { success: true };
  });

  app.post('/api/auth/2fa/disable', {
    config: { loginRateLimit: true },
    preHandler: ownAccount,
    schema: { tags: ['account'], summary: 'Turn two-factor off with a current code', security: SESSION_ONLY, body: Code, response: { 200: Success } },
  }, async (request) => {
    await ctx.auth.disableTwoFactor(requireActor(request), request.body.code);
    return { success: true };
  });

  done();
};
