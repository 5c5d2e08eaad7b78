import type { FastifyServerOptions } from 'fastify';

/**
 * Each request logs through a child carrying its request id; with logging off (level `silent`, as in the
 * benchmarks and tests) that child would be built, bindings redacted and all, on every request for nothing.
 */
export const requestLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  logger.level === 'silent' ? logger : logger.child(bindings, options);
