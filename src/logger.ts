import pino, { type Logger } from 'pino';
import { build as prettyStream } from 'pino-pretty';

export type { Logger } from 'pino';

/** `json`: one JSON object per line, for files and log collectors; `pretty`: short coloured lines for a person at a terminal. */
export type LogFormat = 'json' | 'pretty';
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty'];

/** Fields that may carry credentials, wherever they appear in a log record. */
const REDACTED_PATHS = [
  'req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]', 'res.headers["set-cookie"]',
  '*.password', '*.token', '*.secret', '*.key', 'password', 'token', 'secret', 'key',
];

/** Fields a pretty line leaves out: the process's, and those its message already shows. */
const PRETTY_IGNORED = 'pid,hostname,module,reqId,method,url,status,ms';

/** A pretty line: `[module] message`, a served request as `[http] GET /path 200 4 ms`; other fields follow on the same line. */
function prettyMessage(record: Record<string, unknown>): string {
  const module = typeof record.module === 'string' ? `[${record.module}] ` : '';
  const { method, url, status, ms } = record;
  if (typeof method === 'string' && typeof url === 'string') return `${module}${method} ${url} ${String(status)} ${String(ms)} ms`;
  return `${module}${typeof record.msg === 'string' ? record.msg : ''}`;
}

/** What takes the secrets out of a finished JSON line (the context's SecretRedactor). */
export interface LineRedactor {
  redactJsonLine(line: string): string;
}

export interface LoggerOptions {
  level?: string;
  /** Where lines go: stdout unless given (a stream or a file descriptor). */
  destination?: pino.DestinationStream | NodeJS.WritableStream | number;
  format?: LogFormat;
  /** Takes the values of known secrets out of every line, whatever field carries them (an upstream's error quoted in `err`). */
  redactor?: LineRedactor;
}

/** A logger writing JSON lines (the default) or pretty ones, with credentials redacted once for every child logger. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? 1;
  const stream = options.format === 'pretty'
    ? prettyStream({
      destination, sync: true, colorize: isColourTerminal(destination), singleLine: true,
      translateTime: 'SYS:HH:MM:ss', ignore: PRETTY_IGNORED, messageFormat: prettyMessage,
    })
    : typeof destination === 'number' ? pino.destination(destination) : destination;
  const { redactor } = options;
  return pino({
    level: options.level ?? 'info', redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    ...(redactor === undefined ? {} : { hooks: { streamWrite: (line: string) => redactor.redactJsonLine(line) } }),
  }, stream);
}

function isColourTerminal(destination: LoggerOptions['destination']): boolean {
  const stream = destination === 1 ? process.stdout : destination === 2 ? process.stderr : destination;
  return stream !== undefined && typeof stream === 'object' && 'isTTY' in stream && stream.isTTY && process.env.NO_COLOR === undefined;
}
