import type { FastifyInstance, FastifyRequest } from 'fastify';
import { QuarryError } from '../../errors.ts';
import { isApiRequest } from './request-kind.ts';

const MEDIA_TYPES = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  multipart: 'multipart/form-data',
} as const;
type BodyType = keyof typeof MEDIA_TYPES;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Body types an API route takes besides JSON: the login form's post, an upload's multipart. */
    bodyTypes?: readonly BodyType[];
  }
}

export class UnsupportedMediaTypeError extends QuarryError {
  readonly code = 'unsupported_media_type';
  constructor(accepted: readonly string[]) {
    super(`This endpoint takes a body of type ${accepted.join(' or ')}`);
  }
}

/**
 * An API body must be JSON unless its route says otherwise. A form post (urlencoded, multipart or text/plain)
 * is the one request a hostile page can send cross-site without a preflight, so no JSON endpoint may act on
 * one; refused before parsing, so nothing changes.
 */
export function installBodyTypeCheck(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (hasBody(request) && isApiRequest(request)) refuseUnlessAccepted(request);
    done();
  });
}

function refuseUnlessAccepted(request: FastifyRequest): void {
  const accepted: string[] = ['json' as const, ...request.routeOptions.config.bodyTypes ?? []].map((type) => MEDIA_TYPES[type]);
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!accepted.includes(mediaType)) throw new UnsupportedMediaTypeError(accepted);
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
