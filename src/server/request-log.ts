import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import { levels } from 'pino';

/**
 * One log line per request, as it ends: method, path (never the query, which may carry an OAuth code or a
 * token), status and milliseconds, instead of Fastify's two lines with whole request and reply objects.
 * Answers below 500 are logged at `answeredLevel`: `debug` for a person at a terminal, who follows jobs and
 * errors, not every page, script and poll the browser asks for.
 */
export class OneLinePerRequest extends LogController {
  readonly #answeredLevel: 'info' | 'debug';

  constructor(answeredLevel: 'info' | 'debug') {
    super();
    this.#answeredLevel = answeredLevel;
  }

  override incomingRequest(): void {
    // Told with the request's end.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const level = error || reply.statusCode >= 500 ? 'error' : this.#answeredLevel;
    // Nothing is built per request for a line the level drops.
    if (!logsAt(reply.log, level)) return;
    const fields = { method: request.method, url: request.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log[level](fields, 'request completed');
  }
}

function logsAt(logger: FastifyBaseLogger, level: 'info' | 'debug' | 'error'): boolean {
  return (levels.values[logger.level] ?? Number.POSITIVE_INFINITY) <= (levels.values[level] ?? 0);
}
