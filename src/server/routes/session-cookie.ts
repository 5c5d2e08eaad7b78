import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { SESSION_COOKIE } from '../plugins/index.ts';

export const DASHBOARD_COOKIE = 'dashboard.SESSION';

export function setSessionCookie(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.setCookie(SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: request.protocol === 'https',
    maxAge: Math.floor(ctx.config.auth.session_max_days * 86_400),
  });
}

export function clearSessionCookies(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
  reply.clearCookie(DASHBOARD_COOKIE, { path: '/' });
}

export function clientOf(request: FastifyRequest): { ip: string; userAgent: string } {
  return { ip: request.ip, userAgent: request.headers['user-agent'] ?? '' };
}
