import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import { levels } from 'pino';

/**
 * One log line per request, as it ends: method, path (never the query, which may carry an OAuth code or a
 * token), status and milliseconds, instead of Fastify's two lines with whole request and reply objects.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {
    // Told with the request's end.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // Nothing is built per request for a line the level drops.
    if (!logsAt(reply.log, error ? 'error' : 'info')) return;
    const fields = { method: request.method, url: request.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}

function logsAt(logger: FastifyBaseLogger, level: 'info' | 'error'): boolean {
  return (levels.values[logger.level] ?? Number.POSITIVE_INFINITY) <= (levels.values[level] ?? 0);
}
