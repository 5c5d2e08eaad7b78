import type { FastifyInstance } from 'fastify';
import { InvalidRequestError } from '../../errors.ts';
import { decodedSegments } from './routed-path.ts';

/**
 * Refuses a path with `.` or `..` segments, spelled plainly or percent-encoded. Browsers resolve them
 * before sending, so only a crafted request has them, and the router (which keeps them) and an upstream
 * (which may resolve them) would disagree on what `/transform-docs/../x` or `/dashboard/%2e%2e/x` names.
 */
export function installDotSegmentCheck(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (mayHaveDotSegments(request.url) && decodedSegments(request.url).some((segment) => segment === '.' || segment === '..')) {
      throw new InvalidRequestError('The path has "." or ".." segments; send it as resolved');
    }
    done();
  });
}

/** A dot segment is spelled with a `.`, plainly or as `%2e`: a URL with neither needs no decoding to be cleared. */
function mayHaveDotSegments(url: string): boolean {
  return url.includes('.') || url.includes('%');
}
