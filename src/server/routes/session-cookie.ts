import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { DASHBOARD_SESSION_COOKIE } from '../../dashboard/index.ts';
import { SESSION_COOKIE } from '../plugins/index.ts';

/** Superset's cookie path (SESSION_COOKIE_PATH): set and cleared with exactly this path, or the browser keeps it. */
const DASHBOARD_COOKIE_PATH = '/dashboard';

export function setSessionCookie(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.setCookie(SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: cookiesAreSecure(ctx, request),
    maxAge: Math.floor(ctx.config.auth.session_max_days * 86_400),
  });
}

/**
 * Whether cookies carry `Secure`: when the request came over TLS (directly, or as a trusted proxy says), and
 * always when the public URL is https, so a proxy that does not send X-Forwarded-Proto (or is not in
 * trusted_proxies) cannot make a session cookie travel in clear text.
 */
export function cookiesAreSecure(ctx: AppContext, request: FastifyRequest): boolean {
  return request.protocol === 'https' || ctx.config.web.public_url?.startsWith('https:') === true;
}

export function clearSessionCookies(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
  reply.clearCookie(DASHBOARD_SESSION_COOKIE, { path: DASHBOARD_COOKIE_PATH });
}

/** `dashboard.SESSION` beside `svc_session`, as Superset itself would set it. */
export function setDashboardCookie(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, value: string): void {
  // The value is Superset's signed session id, passed on unchanged.
  reply.setCookie(DASHBOARD_SESSION_COOKIE, value, {
    path: DASHBOARD_COOKIE_PATH, httpOnly: true, sameSite: 'lax', secure: cookiesAreSecure(ctx, request), encode: (raw) => raw,
  });
}

export function clientOf(request: FastifyRequest): { ip: string; userAgent: string } {
  return { ip: request.ip, userAgent: request.headers['user-agent'] ?? '' };
}
