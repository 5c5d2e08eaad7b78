import type { FastifyInstance } from 'fastify';
import type { ProjectPaths } from '../../config/index.ts';
import { docsSiteDir, docsSiteScriptHashes, type DocsServer } from '../../transform/index.ts';
import { contentSecurityPolicy } from '../plugins/index.ts';
import { installUpstreamProxy } from '../upstream-proxy.ts';

/** `/transform-docs/*`, `/manifest.json` and `/catalog.json` → the docs server (dbt's target/ folder). */
export async function installTransformDocsProxy(app: FastifyInstance, docsServer: DocsServer | undefined, paths: ProjectPaths): Promise<void> {
  app.get('/transform-docs', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/transform-docs/', 301));
  await installUpstreamProxy(app, {
    label: 'The transformation-docs site',
    routes: ['/transform-docs/*', '/manifest.json', '/catalog.json'],
    origin: () => docsServer?.socket(),
    socketPath: docsServer?.socketPath,
    upstreamPath: (url) => (url.startsWith('/transform-docs/') ? url.slice('/transform-docs'.length) : url),
    // dbt's docs page is one inline application: allowed by its published hashes, on these paths only.
    responseHeaders: () => ({
      'content-security-policy': contentSecurityPolicy({ scriptSources: docsSiteScriptHashes(docsSiteDir(paths)), fontSources: ['data:'] }),
    }),
  });
}
