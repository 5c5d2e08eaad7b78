import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { QuarryError } from '../../errors.ts';
import { storeFailure } from '../../store/index.ts';
import { renderErrorPage, renderNotFoundPage } from '../../web/index.ts';
import { sendError } from './error-reply.ts';
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
      return sendError(reply.headers(error.headers), error.code, redact(error.message));
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const errors = error.validation.map((issue) => ({
        path: `${error.validationContext ?? ''}${issue.instancePath}`,
        message: issue.message,
      }));
      const first = errors[0];
      const detail = first ? `Invalid request: ${first.path}: ${first.message}` : 'Invalid request';
      return sendError(reply, 'invalid_request', detail, { errors });
    }
    const status = error.statusCode ?? 500;
    // Fastify's and its plugins' own statuses, each answered with the code that means it.
    if (status === 413) return sendError(reply, 'upload_too_large', MULTIPART_LIMITS[error.code] ?? 'The request body is too large');
    if (status === 415) return sendError(reply, 'unsupported_media_type', 'Unsupported content type');
    if (status >= 400 && status < 500) return sendError(reply, 'invalid_request', redact(clientMessage(error)));
    const failure = storeFailure(error);
    if (failure === 'busy') {
      request.log.warn({ err: error }, 'the platform database is locked by another process');
      void reply.header('retry-after', String(BUSY_RETRY_SECONDS));
      return sendError(reply, 'platform_db_busy', 'The platform database is locked by another process; try again in a moment');
    }
    if (failure === 'unavailable') {
      request.log.error({ err: error }, 'the platform store (PostgreSQL) is not answering');
      void reply.header('retry-after', String(BUSY_RETRY_SECONDS));
      return sendError(reply, 'platform_db_unavailable', 'The platform store is not answering; try again in a moment');
    }
    if (failure === 'read_only') {
      request.log.error({ err: error, method: request.method, url: request.url }, 'the platform database cannot be written (read-only file or file system); changes are refused until it is writable');
      return sendError(reply, 'platform_db_read_only',
        'The platform database is read-only: nothing can be changed until an administrator makes it writable again; reading still works');
    }
    // A client that went away (a closed tab) ends what it asked for half-way: that is no fault of the service.
    if (request.raw.socket.destroyed) {
      request.log.debug({ err: error }, 'the client went away before its answer');
      return sendError(reply, 'invalid_request', 'The client closed the connection');
    }
    request.log.error({ err: error }, 'unhandled error');
    if (!isApiRequest(request) && request.method === 'GET') return reply.code(500).type('text/html; charset=utf-8').send(renderErrorPage({ user: request.actor }));
    return sendError(reply, 'internal_error', 'Internal error');
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    if (isApiRequest(request)) {
      return sendError(reply, 'not_found', `No endpoint ${request.method} ${request.url.split('?')[0] ?? ''}`);
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
