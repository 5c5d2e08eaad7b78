import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';

/** The address the server listens on (`quarry start --host/--port` included), else the configured one (before it listens, or no server). */
export function listeningAddress(ctx: AppContext, app?: FastifyInstance): { host: string; port: number } {
  const address = app?.server.address() ?? null;
  if (address !== null && typeof address === 'object') return { host: address.address, port: address.port };
  return { host: ctx.config.web.host, port: ctx.config.web.port };
}

/** The base address users reach Quarry at: `web.public_url`, else the address the server listens on (or is configured to). */
export function webUrl(ctx: AppContext, app?: FastifyInstance): string {
  const publicUrl = ctx.config.web.public_url;
  if (publicUrl !== undefined) return publicUrl.replace(/\/+$/, '');
  const { host, port } = listeningAddress(ctx, app);
  const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${shownHost}:${String(port)}`;
}
