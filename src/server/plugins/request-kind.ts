import type { FastifyRequest } from 'fastify';

/** API clients get JSON; browsers navigating to a page get HTML and redirects. */
export function isApiRequest(request: FastifyRequest): boolean {
  const pathname = request.url.split('?')[0] ?? '';
  return pathname === '/api' || pathname.startsWith('/api/') || pathname === '/ws';
}
