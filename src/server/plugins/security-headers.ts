import type { FastifyInstance } from 'fastify';

/**
 * The application's content security policy: its own origin only, no inline script. A page that needs more
 * (dbt's docs site) adds exactly its own inline scripts' hashes and font sources.
 */
export function contentSecurityPolicy(extra: { scriptSources?: readonly string[]; fontSources?: readonly string[] } = {}): string {
  return [
    "default-src 'self'",
    ['script-src', "'self'", ...extra.scriptSources ?? []].join(' '),
    // Swagger UI and Redoc set element styles at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    ...extra.fontSources === undefined ? [] : [['font-src', "'self'", ...extra.fontSources].join(' ')],
    "worker-src 'self' blob:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

const CONTENT_SECURITY_POLICY = contentSecurityPolicy();

const ALWAYS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'same-origin', 'x-frame-options': 'DENY' } as const;

/** Security headers on every response we produce ourselves; a proxied upstream keeps its own policy. */
export function installSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.headers(ALWAYS);
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
    // Behind a login nothing is cached unless its route (static assets, Superset's bundles) said otherwise.
    if (request.actor !== null && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
}
