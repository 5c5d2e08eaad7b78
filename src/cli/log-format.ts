import type { LogFormat } from '../logger.ts';

/** Pretty lines for a person at a terminal, JSON for a pipe or a file. */
export function defaultLogFormat(stream: NodeJS.WriteStream): LogFormat {
  return stream.isTTY ? 'pretty' : 'json';
}
