import type { AppContext } from '../../context.ts';

/** The base address users reach Quarry at: `web.public_url`, else the configured host and port. */
export function webUrl(ctx: AppContext): string {
  const { host, port, public_url: publicUrl } = ctx.config.web;
  if (publicUrl !== undefined) return publicUrl.replace(/\/+$/, '');
  const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${shownHost}:${String(port)}`;
}
