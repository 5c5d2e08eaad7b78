import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import swagger, { type SwaggerTransformObject } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { ERROR_CODES } from '../../errors.ts';

const require = createRequire(import.meta.url);
const REDOC_BUNDLE = path.join(path.dirname(require.resolve('redoc/package.json')), 'bundles', 'redoc.standalone.js');

const REDOC_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Quarry API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/static/public/favicon.svg" type="image/svg+xml"></head>
<body><div id="redoc"></div>
<script src="/api/redoc/redoc.standalone.js"></script>
<script src="/api/redoc/init.js"></script>
</body></html>`;

/**
 * Redoc's sidebar always shows Redocly's logo from their CDN (no option turns it off): another origin,
 * which the policy blocks with a console error. The bundle is served with a blank image in its place.
 */
const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const BLANK_IMAGE = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E";
async function readRedocBundle(): Promise<string> {
  return (await readFile(REDOC_BUNDLE, 'utf8')).replaceAll(REDOC_CDN_LOGO, BLANK_IMAGE);
}

const REDOC_INIT = "Redoc.init('/api/openapi.json', { hideDownloadButton: false }, document.getElementById('redoc'));\n";

/** Each code with its status and meaning, so a client learns from the document alone every code it must handle. */
const CODE_DESCRIPTION = [
  'What went wrong, for a program to act on (`detail` is for a person). The codes, each with its HTTP status:',
  '',
  ...Object.entries(ERROR_CODES).map(([code, { status, meaning }]) => `- \`${code}\` (${String(status)}): ${meaning}`),
].join('\n');

/**
 * Every error answer's body (`{detail, code}`, with `errors` on a validation failure): each operation's default
 * response. Every answer's code is typed as a code of ERROR_CODES, so a response checker may hold answers to the enum.
 */
const ERROR_RESPONSE = {
  description: 'An error: `{"detail", "code"}`',
  type: 'object' as const,
  required: ['detail', 'code'],
  properties: {
    detail: { type: 'string' as const },
    code: { type: 'string' as const, enum: Object.keys(ERROR_CODES), description: CODE_DESCRIPTION },
    errors: {
      type: 'array' as const,
      items: { type: 'object' as const, required: ['path', 'message'], properties: { path: { type: 'string' as const }, message: { type: 'string' as const } } },
    },
  },
};

declare module 'fastify' {
  interface FastifySchema {
    /**
     * A multipart/form-data upload the handler streams itself, so Fastify must not parse or validate it:
     * documented only, as the part holding the file and an example of the file name it must carry.
     */
    upload?: { readonly field: string; readonly fileName: string; readonly contentType: string; readonly description: string };
  }
}

/** Where a multipart body's encoding waits in its schema until the document is assembled (swagger drops media-level keys). */
const ENCODING_KEY = 'x-quarry-encoding';

/** The error body, once in the document's components: inlined, its list of codes would repeat in every operation. */
const ERROR_SCHEMA_NAME = 'Error';
const ERROR_SCHEMA_REF = { $ref: `#/components/schemas/${ERROR_SCHEMA_NAME}` };

/** The zod route schemas as JSON Schema, each operation documenting the error body beside its own replies. */
const transform: typeof jsonSchemaTransform = (input) => {
  const { upload, ...schema } = input.schema as typeof input.schema & FastifySchema;
  const transformed = jsonSchemaTransform({ ...input, schema });
  const response = (transformed.schema.response ?? {}) as Record<string, unknown>;
  return {
    ...transformed,
    schema: { ...transformed.schema, ...(upload === undefined ? {} : uploadBody(upload)), response: { ...response, default: ERROR_RESPONSE } },
  };
};

function uploadBody(upload: NonNullable<FastifySchema['upload']>): Pick<FastifySchema, 'body' | 'consumes'> {
  const disposition = `form-data; name="${upload.field}"; filename="${upload.fileName}"`;
  return {
    consumes: ['multipart/form-data'],
    body: {
      type: 'object',
      required: [upload.field],
      properties: { [upload.field]: { type: 'string', format: 'binary', description: upload.description } },
      [ENCODING_KEY]: {
        [upload.field]: { contentType: upload.contentType, headers: { 'Content-Disposition': { schema: { type: 'string' }, example: disposition } } },
      },
    },
  };
}

/**
 * Moves each multipart body's encoding from its schema to its media type object, where OpenAPI has it,
 * leaves redirects without a body (a route schema can only give every response one), and points every
 * operation's default (error) response at the one Error schema.
 */
const transformObject: SwaggerTransformObject = (document) => {
  if (!('openapiObject' in document)) return document.swaggerObject;
  const components = document.openapiObject.components ?? {};
  document.openapiObject.components = { ...components, schemas: { ...components.schemas, [ERROR_SCHEMA_NAME]: ERROR_RESPONSE } };
  for (const operations of Object.values(document.openapiObject.paths ?? {})) {
    for (const operation of Object.values(operations ?? {}) as Operation[]) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (status.startsWith('3')) delete response.content;
        if (status === 'default') for (const media of Object.values(response.content ?? {})) media.schema = ERROR_SCHEMA_REF;
      }
      for (const media of Object.values(operation.requestBody?.content ?? {})) {
        const encoding = media.schema?.[ENCODING_KEY];
        if (encoding === undefined) continue;
        delete media.schema?.[ENCODING_KEY];
        media.encoding = encoding;
      }
    }
  }
  return document.openapiObject;
};

interface Operation {
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

interface MediaType {
  schema?: Record<string, unknown>;
  encoding?: unknown;
}

/** The OpenAPI document built from the route schemas, Swagger UI at /api/docs and Redoc at /api/redoc. */
export async function installOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Quarry API',
        version,
        description: 'Errors are JSON `{"detail", "code"}`; the Error schema lists every code with its status and meaning. Authenticate with the `svc_session` cookie or `Authorization: Bearer svc_ak_...`.',
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
    transformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', uiConfig: { url: '/api/openapi.json' } });

  const hidden = { schema: { hide: true } };
  app.get('/api/openapi.json', hidden, async () => app.swagger());
  app.get('/api/redoc', hidden, async (_request, reply) => reply.type('text/html; charset=utf-8').send(REDOC_PAGE));
  app.get('/api/redoc/init.js', hidden, async (_request, reply) => reply.type('text/javascript').send(REDOC_INIT));
  let redocBundle: Promise<string> | undefined;
  app.get('/api/redoc/redoc.standalone.js', hidden, async (_request, reply) => {
    redocBundle ??= readRedocBundle();
    return reply.type('text/javascript').header('cache-control', 'public, max-age=86400').send(await redocBundle);
  });
}
