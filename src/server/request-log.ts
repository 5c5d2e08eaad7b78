import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * One log line per request, as it ends: method, path (never the query, which may carry an OAuth code or a
 * token), status and milliseconds, instead of Fastify's two lines with whole request and reply objects.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {
    // Told with the request's end.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const fields = { method: request.method, url: request.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}
