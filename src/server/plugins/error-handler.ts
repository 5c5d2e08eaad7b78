import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { QuarryError } from '../../errors.ts';
import { sqliteFailure } from '../../store/index.ts';
import { renderErrorPage, renderNotFoundPage } from '../../web/index.ts';
import { isApiRequest } from './request-kind.ts';

/** What each multipart limit means for the sender (they all answer 413, which alone reads as "too big"). */
const MULTIPART_LIMITS: Partial<Record<string, string>> = {
  FST_PARTS_LIMIT: 'The upload has too many parts: send one file',
  FST_FILES_LIMIT: 'The upload has more than one file: send one file per request',
  FST_FIELDS_LIMIT: 'The upload has too many form fields',
};

/**
 * The one place an error becomes a response: `{detail, code}` for the API, a redirect or page for browsers.
 * `redact` takes known secrets out of a detail, which may quote what an upstream or the lake answered.
 */
export function installErrorHandler(app: FastifyInstance, redact: (text: string) => string): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof QuarryError) {
      return reply.code(error.status).headers(error.headers).send({ detail: redact(error.message), code: error.code });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const errors = error.validation.map((issue) => ({
        path: `${error.validationContext ?? ''}${issue.instancePath}`,
        message: issue.message,
      }));
      const first = errors[0];
      const detail = first ? `Invalid request: ${first.path}: ${first.message}` : 'Invalid request';
      return reply.code(400).send({ detail, code: 'invalid_request', errors });
    }
    const status = error.statusCode ?? 500;
    if (status === 413) return reply.code(413).send({ detail: MULTIPART_LIMITS[error.code] ?? 'The request body is too large', code: 'upload_too_large' });
    if (status === 415) return reply.code(415).send({ detail: 'Unsupported content type', code: 'unsupported_media_type' });
    if (status >= 400 && status < 500) {
      return reply.code(400).send({ detail: redact(clientMessage(error)), code: 'invalid_request' });
    }
    const failure = sqliteFailure(error);
    if (failure === 'busy') {
      request.log.warn({ err: error }, 'the platform database is locked by another process');
      return reply.code(503).header('retry-after', String(BUSY_RETRY_SECONDS)).send({
        detail: 'The platform database is locked by another process; try again in a moment', code: 'platform_db_busy',
      });
    }
    if (failure === 'read_only') {
      request.log.error({ err: error, method: request.method, url: request.url }, 'the platform database cannot be written (read-only file or file system); changes are refused until it is writable');
      return reply.code(503).send({
        detail: 'The platform database is read-only: nothing can be changed until an administrator makes it writable again; reading still works',
        code: 'platform_db_read_only',
      });
    }
    request.log.error({ err: error }, 'unhandled error');
    if (!isApiRequest(request) && request.method === 'GET') return reply.code(500).type('text/html; charset=utf-8').send(renderErrorPage({ user: request.actor }));
    return reply.code(500).send({ detail: 'Internal error', code: 'internal_error' });
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    if (isApiRequest(request)) {
      return reply.code(404).send({ detail: `No endpoint ${request.method} ${request.url.split('?')[0] ?? ''}`, code: 'not_found' });
    }
    return reply.code(404).type('text/html; charset=utf-8').send(renderNotFoundPage({ user: request.actor }));
  });
}

const BUSY_RETRY_SECONDS = 5;

/** Fastify's own client errors (bad JSON, empty body with a JSON type) are safe to echo; anything else gets a fixed text. */
function clientMessage(error: FastifyError): string {
  // A plugin's error may carry a status and no code at all.
  return typeof error.code === 'string' && error.code.startsWith('FST_ERR_CTP') ? error.message : 'Bad request';
}
