import type { FastifyRequest } from 'fastify';
import { routedPath } from './routed-path.ts';

/** API clients get JSON; browsers navigating to a page get HTML and redirects. */
export function isApiRequest(request: FastifyRequest): boolean {
  const path = routedPath(request);
  return path === '/api' || path.startsWith('/api/') || path === '/ws';
}
