import { createRequire } from 'node:module';
import path from 'node:path';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

const require = createRequire(import.meta.url);
const REDOC_BUNDLE = path.join(path.dirname(require.resolve('redoc/package.json')), 'bundles', 'redoc.standalone.js');

const REDOC_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Quarry API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><div id="redoc"></div>
<script src="/api/redoc/redoc.standalone.js"></script>
<script src="/api/redoc/init.js"></script>
</body></html>`;

const REDOC_INIT = "Redoc.init('/api/openapi.json', { hideDownloadButton: false }, document.getElementById('redoc'));\n";

/** Every error answer's body (`{detail, code}`, with `errors` on a validation failure): each operation's default response. */
const ERROR_RESPONSE = {
  description: 'An error: `{"detail", "code"}`',
  type: 'object',
  required: ['detail', 'code'],
  properties: {
    detail: { type: 'string' },
    code: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
    },
  },
};

/** The zod route schemas as JSON Schema, each operation documenting the error body beside its own replies. */
const transform: typeof jsonSchemaTransform = (input) => {
  const transformed = jsonSchemaTransform(input);
  const response = (transformed.schema.response ?? {}) as Record<string, unknown>;
  return { ...transformed, schema: { ...transformed.schema, response: { ...response, default: ERROR_RESPONSE } } };
};

/** The OpenAPI document built from the route schemas, Swagger UI at /api/docs and Redoc at /api/redoc. */
export async function installOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Quarry API',
        version,
        description: 'Errors are JSON `{"detail", "code"}`. Authenticate with the `svc_session` cookie or `Authorization: Bearer svc_ak_...`.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key starting with svc_ak_' },
          session: { type: 'apiKey', in: 'cookie', name: 'svc_session' },
        },
      },
      security: [{ apiKey: [] }, { session: [] }],
    },
    transform,
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', uiConfig: { url: '/api/openapi.json' } });

  const hidden = { schema: { hide: true } };
  app.get('/api/openapi.json', hidden, async () => app.swagger());
  app.get('/api/redoc', hidden, async (_request, reply) => reply.type('text/html; charset=utf-8').send(REDOC_PAGE));
  app.get('/api/redoc/init.js', hidden, async (_request, reply) => reply.type('text/javascript').send(REDOC_INIT));
  app.get('/api/redoc/redoc.standalone.js', hidden, async (_request, reply) => {
    return reply.type('text/javascript').header('cache-control', 'public, max-age=86400')
      .sendFile(path.basename(REDOC_BUNDLE), path.dirname(REDOC_BUNDLE));
  });
}
