import type { FastifyRequest } from 'fastify';

/**
 * The path a request decision must look at: the pattern of the route the router matched, or, when no
 * route matched, the pathname decoded as the router decodes it. Never the raw `request.url`: `/%61pi/`
 * reaches the `/api/` routes while its raw spelling does not start with `/api/`.
 */
export function routedPath(request: FastifyRequest): string {
  return request.routeOptions.url ?? decodedPathname(request.url);
}

/** Each segment of the pathname decoded, `%2F` and all: the spelling an upstream may finally act on. */
export function decodedSegments(url: string): string[] {
  return pathnameOf(url).split('/').flatMap((segment) => safeDecode(segment).split(/[/\\]/));
}

function decodedPathname(url: string): string {
  return safeDecode(pathnameOf(url));
}

/** An absolute-form target (`GET http://host/api/x`) is routed by its path. */
function pathnameOf(url: string): string {
  if (url.startsWith('/')) return url.split('?')[0] ?? '';
  try {
    return new URL(url).pathname;
  } catch {
    return url.split('?')[0] ?? '';
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
