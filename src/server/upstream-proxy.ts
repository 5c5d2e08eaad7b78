import replyFrom from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { renderUpstreamUnavailablePage } from '../web/index.ts';
import { sendError } from './plugins/index.ts';

export interface UpstreamProxyOptions {
  /** What users call the upstream, for the 502 message ("The transformation-docs site"). */
  readonly label: string;
  /** Route patterns served by the upstream (`/transform-docs/*`). */
  readonly routes: readonly string[];
  /** The upstream's origin while it runs, else undefined; with `socketPath`, only whether it runs. */
  readonly origin: () => string | undefined;
  /** The Unix socket the upstream listens on, when it does (fixed for the app's life). */
  readonly socketPath?: string;
  /** The upstream path and query for a request's URL. */
  readonly upstreamPath: (url: string) => string;
  /** Methods forwarded (GET and HEAD unless given); request bodies of the others are streamed, never parsed. */
  readonly methods?: readonly HTTPMethods[];
  /** Cookies of the upstream's own the client may send it (every other cookie stays with Quarry). */
  readonly upstreamCookies?: readonly string[];
  /** Headers added for a request, after every client-sent `x-quarry-*` header was removed. */
  readonly identify?: (request: FastifyRequest) => Promise<Record<string, string>>;
  /** Headers set on every response from the upstream, replacing the upstream's own of those names. */
  readonly responseHeaders?: () => Record<string, string>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive']);

/** Client-sent headers in Quarry's namespace are never trusted by an upstream; `_` spellings too. */
const QUARRY_HEADER = /^x[-_]quarry[-_]/i;

/**
 * Forwards the routes to an upstream process on loopback or a Unix socket, behind the app's authentication hooks; an
 * upstream that is down answers 502 `upstream_unavailable` (JSON for API clients, a page for browsers).
 */
export async function installUpstreamProxy(app: FastifyInstance, options: UpstreamProxyOptions): Promise<void> {
  await app.register(async (scope) => {
    const undici = { connections: 16, headersTimeout: 60_000, bodyTimeout: 120_000 };
    // Each proxied request has its own line already (OneLinePerRequest); reply-from would add two more.
    await scope.register(replyFrom, {
      disableRequestLogging: true, undici, ...options.socketPath === undefined ? {} : { base: `unix+http://${encodeURIComponent(options.socketPath)}` },
    });
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => { done(null, payload); });
    const unavailable = (request: FastifyRequest, reply: FastifyReply): FastifyReply => replyUpstreamUnavailable(request, reply, options.label);
    const forward = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      let origin = options.origin();
      if (origin === undefined) return unavailable(request, reply);
      let identity: Record<string, string> = {};
      try {
        identity = await options.identify?.(request) ?? {};
      } catch (error) {
        request.log.warn({ err: error, upstream: options.label }, 'upstream identity unavailable');
        return unavailable(request, reply);
      }
      origin = options.origin();
      if (origin === undefined) return unavailable(request, reply);
      const upstreamOrigin = origin;
      const upstreamPath = options.upstreamPath(pathAndQuery(request.url));
      return reply.from(options.socketPath === undefined ? `${upstreamOrigin}${upstreamPath}` : upstreamPath, {
        rewriteRequestHeaders: (_request, headers) => {
          // The upstream never sees Quarry's credentials, nor identity headers a client made up.
          const forwarded: Record<string, string | string[] | undefined> = {};
          for (const [name, value] of Object.entries(headers)) {
            if (name !== 'cookie' && name !== 'authorization' && !QUARRY_HEADER.test(name)) forwarded[name] = value;
          }
          // Raw pairs from the header: the upstream signed these values and must get them byte for byte.
          const upstreamCookies = new Set(options.upstreamCookies ?? []);
          const cookies = (request.headers.cookie ?? '').split(';').map((pair) => pair.trim())
            .filter((pair) => upstreamCookies.has(pair.slice(0, pair.indexOf('='))));
          if (cookies.length > 0) forwarded.cookie = cookies.join('; ');
          return { ...forwarded, ...identity };
        },
        rewriteHeaders: (upstreamHeaders) => {
          // Hop-by-hop: how Quarry talks to the upstream says nothing about how it talks to the client
          // (a forwarded `connection: keep-alive` overrode a client's `Connection: close`).
          const headers = {
            ...Object.fromEntries(Object.entries(upstreamHeaders).filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase()))),
            ...options.responseHeaders?.(),
          };
          const location = headers.location;
          if (typeof location === 'string' && location.startsWith(upstreamOrigin)) {
            return { ...headers, location: location.slice(upstreamOrigin.length) || '/' };
          }
          return headers;
        },
        onError: (failedReply, { error }) => {
          request.log.warn({ err: error, upstream: options.label }, 'upstream request failed');
          unavailable(request, failedReply as FastifyReply);
        },
      });
    };
    for (const route of options.routes) {
      scope.route({ method: [...(options.methods ?? ['GET', 'HEAD'])], url: route, schema: { hide: true }, handler: forward });
    }
  });
}

/** 502 `upstream_unavailable`: a page for browsers, JSON for API clients. */
export function replyUpstreamUnavailable(request: FastifyRequest, reply: FastifyReply, label: string): FastifyReply {
  if (request.headers.accept?.includes('text/html') === true) {
    return reply.code(502).type('text/html; charset=utf-8').send(renderUpstreamUnavailablePage({ label }));
  }
  return sendError(reply, 'upstream_unavailable', `${label} is not available right now`);
}

/**
 * The path and query of a request target. An absolute-form target (`GET http://elsewhere/transform-docs/x`)
 * is routed by its path, so only that part may reach the upstream: the upstream's origin is always ours.
 */
function pathAndQuery(target: string): string {
  if (target.startsWith('/')) return target;
  const url = new URL(target, 'http://quarry.invalid');
  return `${url.pathname}${url.search}`;
}
