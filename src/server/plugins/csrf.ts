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
  app.addHook('onRequest', (request, _reply, done) => {
    if (isForgedStateChange(request, publicUrl)) throw new CsrfError();
    done();
  });
}

function isForgedStateChange(request: FastifyRequest, publicUrl: string | undefined): boolean {
  if (!STATE_CHANGING.has(request.method)) return false;
  if (request.headers.authorization !== undefined) return false;
  const origin = request.headers.origin;
  const sameOrigin = origin !== undefined && isSameOrigin(request, origin, publicUrl);
  if (origin !== undefined && !sameOrigin) return true;
  if (request.routeOptions.config.public === true) return false;
  if (request.actor === null) return false;
  return !sameOrigin && request.headers['x-requested-with'] !== 'XMLHttpRequest';
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
