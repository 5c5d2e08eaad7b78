import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { DASHBOARD_SESSION_COOKIE, type DashboardBridge, type DashboardService, type SupersetProcess } from '../../dashboard/index.ts';
import { UnauthenticatedError } from '../../errors.ts';
import { installUpstreamProxy, replyUpstreamUnavailable } from '../upstream-proxy.ts';
import { clientOf, setDashboardCookie } from './session-cookie.ts';

const LABEL = 'The dashboard tool';
const LOGIN_WAIT_MS = 5000;
const ACCOUNT_PAGE = '/settings/account';

/**
 * `/dashboard/*` → Superset, only behind a platform session or API key, with the caller's identity
 * set by Quarry; Superset's logout links lead to Quarry's sign-out.
 */
export async function installDashboardProxy(
  app: FastifyInstance, ctx: AppContext, superset: SupersetProcess | undefined, dashboard: DashboardService | undefined,
): Promise<void> {
  const bridge = dashboard?.bridge;
  app.get('/dashboard', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/dashboard/', 301));
  app.get('/dashboard/', { schema: { hide: true } }, async (request, reply) => {
    if (request.actor === null) throw new UnauthenticatedError();
    if (dashboard === undefined || superset?.origin() === undefined) return replyUpstreamUnavailable(request, reply, LABEL);
    return reply.redirect(await dashboard.homePath(), 302);
  });
  // Superset's logout link is a GET, which any site can trigger with a top-level navigation (the Lax cookie goes
  // along): it ends nothing and leads to the account page, whose Sign out button POSTs under the CSRF rule.
  // Superset 6.1 under a prefix links its logout as /dashboard/dashboard/logout/ (apache/superset#40576).
  for (const url of ['/dashboard/logout/', '/dashboard/dashboard/logout/']) {
    app.get(url, { schema: { hide: true } }, async (_request, reply) => reply.redirect(ACCOUNT_PAGE, 303));
  }
  const identify = async (request: FastifyRequest): Promise<Record<string, string>> => {
    if (request.actor === null || bridge === undefined) throw new UnauthenticatedError();
    const user = await ctx.auth.findUser(request.actor.userId);
    if (user === undefined) throw new UnauthenticatedError();
    // Opens the account lazily when Superset was down at the user's login (or the user is new).
    await bridge.ensureAccount(user);
    return bridge.identityHeaders(user);
  };
  await installUpstreamProxy(app, {
    label: LABEL,
    routes: ['/dashboard/*'],
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    origin: () => superset?.origin(),
    // Explore's CSV export posts to a doubly prefixed path (apache/superset#35027).
    upstreamPath: (url) => url.replace(/^\/dashboard\/dashboard\/api\//, '/dashboard/api/'),
    upstreamCookies: [DASHBOARD_SESSION_COOKIE],
    identify,
  });
}

/** Ends the platform session and the Superset session behind the request's cookies. */
export async function endSessions(ctx: AppContext, bridge: DashboardBridge | undefined, request: FastifyRequest): Promise<void> {
  if (request.actor !== null) await ctx.auth.logout(request.actor, clientOf(request));
  const dashboardSession = request.cookies[DASHBOARD_SESSION_COOKIE];
  if (bridge === undefined || dashboardSession === undefined) return;
  try {
    await bridge.closeSession(dashboardSession);
  } catch (error) {
    request.log.warn({ err: error }, 'the dashboard session could not be ended');
  }
}

/** Opens the user's Superset session at login and sets its cookie; a dashboard tool that is down is opened lazily later. */
export async function openDashboardSession(ctx: AppContext, bridge: DashboardBridge | undefined, request: FastifyRequest, reply: FastifyReply, userId: number): Promise<void> {
  const user = await ctx.auth.findUser(userId);
  if (bridge === undefined || user === undefined) return;
  try {
    // A slow dashboard tool never holds up the login: the session then opens at the first /dashboard/ request.
    const value = await Promise.race([bridge.openSession(user), delay(LOGIN_WAIT_MS, undefined, { ref: false })]);
    if (value !== undefined) setDashboardCookie(ctx, request, reply, value);
  } catch (error) {
    request.log.warn({ err: error }, 'the dashboard session could not be opened at login');
  }
}
