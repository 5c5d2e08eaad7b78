import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ProjectConfig } from '../../config/index.ts';
import { TooManyRequestsError } from '../../errors.ts';
import { isApiRequest } from './request-kind.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Counted against the login limit instead of the general /api one: the routes where a secret is guessed. */
    loginRateLimit?: boolean;
  }
}

/** Decided by the matched route, never by the raw URL (`/api/auth/%6cogin` is the login route too). */
function isLogin(request: FastifyRequest): boolean {
  return request.routeOptions.config.loginRateLimit === true;
}

/**
 * Per client IP: the login routes and the rest of /api each have their own fixed 60-second
 * window. The client IP is the socket's, or X-Forwarded-For's when the socket is a trusted proxy
 * (Fastify's trustProxy); exempt addresses (loopback by default) are never limited.
 */
export async function installRateLimits(app: FastifyInstance, config: ProjectConfig): Promise<void> {
  const exempt = new Set(config.rate_limit_exempt.map(normalizeAddress));
  await app.register(rateLimit, { global: false, enableDraftSpec: true });
  const limit = app.rateLimit({
    timeWindow: 60_000,
    max: (request) => isLogin(request) ? config.limits.login_requests_per_minute : config.limits.api_requests_per_minute,
    keyGenerator: (request) => `${isLogin(request) ? 'login' : 'api'}|${normalizeAddress(request.ip)}`,
    errorResponseBuilder: (_request, context) => new TooManyRequestsError(
      `Too many requests: at most ${String(context.max)} a minute from one address; retry in ${context.after}`,
      context.ttl / 1000,
    ),
  });
  // A root-level hook, added before authentication's, so unauthenticated floods are limited too. A request the
  // limits do not apply to (an exempt address, a page) passes synchronously, without the limiter's promises; the
  // address is looked at first, as it is the cheaper question (no route options object to build).
  app.addHook('onRequest', function limitUnlessExempt(this: FastifyInstance, request, reply, done) {
    if (exempt.has(normalizeAddress(request.ip)) || !isApiRequest(request)) {
      done();
      return undefined;
    }
    return limit.call(this, request, reply);
  });
}

/** `::ffff:127.0.0.1` and `127.0.0.1` are one client. */
function normalizeAddress(address: string): string {
  return address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
}
