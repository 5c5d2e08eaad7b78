import replyFrom from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { renderUpstreamUnavailablePage } from '../web/index.ts';

export interface UpstreamProxyOptions {
  /** What users call the upstream, for the 502 message ("The transformation-docs site"). */
  readonly label: string;
  /** Route patterns served by the upstream (`/transform-docs/*`). */
  readonly routes: readonly string[];
  /** The upstream's origin while it runs, else undefined. */
  readonly origin: () => string | undefined;
  /** The upstream path and query for a request's URL. */
  readonly upstreamPath: (url: string) => string;
}

/**
 * Forwards the routes to an upstream process on loopback, behind the app's authentication hooks; an
 * upstream that is down answers 502 `upstream_unavailable` (JSON for API clients, a page for browsers).
 */
export async function installUpstreamProxy(app: FastifyInstance, options: UpstreamProxyOptions): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(replyFrom, { undici: { connections: 16, headersTimeout: 60_000, bodyTimeout: 120_000 } });
    const unavailable = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
      const detail = `${options.label} is not available right now`;
      if (request.headers.accept?.includes('text/html') === true) {
        return reply.code(502).type('text/html; charset=utf-8').send(renderUpstreamUnavailablePage({ label: options.label }));
      }
      return reply.code(502).send({ detail, code: 'upstream_unavailable' });
    };
    const forward = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      const origin = options.origin();
      if (origin === undefined) return unavailable(request, reply);
      return reply.from(`${origin}${options.upstreamPath(request.url)}`, {
        rewriteRequestHeaders: (_request, headers) => {
          // The upstream never sees Quarry's credentials.
          const forwarded = { ...headers };
          delete forwarded.cookie;
          delete forwarded.authorization;
          return forwarded;
        },
        onError: (failedReply, { error }) => {
          request.log.warn({ err: error, upstream: options.label }, 'upstream request failed');
          unavailable(request, failedReply as FastifyReply);
        },
      });
    };
    for (const route of options.routes) {
      scope.route({ method: ['GET', 'HEAD'], url: route, schema: { hide: true }, handler: forward });
    }
  });
}
