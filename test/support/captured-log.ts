import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/logger.ts';

export interface LogRecord {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

export interface CapturedLog {
  /** A logger at debug level whose records are kept in memory. */
  readonly log: Logger;
  /** Every record logged so far, oldest first. */
  records(): LogRecord[];
}

/** The service's log as the records it wrote, for tests that check what it said. */
export function captureLog(): CapturedLog {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
      callback();
    },
  });
  return {
    log: createLogger({ level: 'debug', destination }),
    records: () => lines.map((line) => JSON.parse(line) as LogRecord),
  };
}
