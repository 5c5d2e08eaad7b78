import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

/** Fields that may carry credentials, wherever they appear in a log record. */
const REDACTED_PATHS = [
  'req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]', 'res.headers["set-cookie"]',
  '*.password', '*.token', '*.secret', '*.key', 'password', 'token', 'secret', 'key',
];

/** JSON lines on stdout (or the given stream), with credentials redacted once for every child logger. */
export function createLogger(options: { level?: string; destination?: pino.DestinationStream } = {}): Logger {
  return pino(
    { level: options.level ?? 'info', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
    options.destination ?? pino.destination(1),
  );
}
