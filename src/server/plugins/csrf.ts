import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CsrfError } from '../../auth/index.ts';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A cookie-authenticated state change must prove it comes from our own pages: the
 * X-Requested-With header (which a cross-site form cannot set) or a same-origin Origin.
 * Bearer requests carry no ambient credential and are exempt. The login form, which has
 * no session yet, is checked by Origin alone.
 */
export function installCsrfProtection(app: FastifyInstance, publicUrl: string | undefined): void {
  app.addHook('onRequest', async (request) => {
    if (!STATE_CHANGING.has(request.method)) return;
    if (request.headers.authorization !== undefined) return;
    const origin = request.headers.origin;
    const sameOrigin = origin !== undefined && isSameOrigin(request, origin, publicUrl);
    if (origin !== undefined && !sameOrigin) throw new CsrfError();
    if (request.routeOptions.config.public === true) return;
    if (request.actor === null) return;
    if (!sameOrigin && request.headers['x-requested-with'] !== 'XMLHttpRequest') throw new CsrfError();
  });
}

export function isSameOrigin(request: FastifyRequest, origin: string, publicUrl: string | undefined): boolean {
  if (publicUrl !== undefined && new URL(publicUrl).origin === origin) return true;
  try {
    const url = new URL(origin);
    return url.host === request.headers.host && url.protocol === `${request.protocol}:`;
  } catch {
    return false;
  }
}
