import { loaderFor } from '../sources/index.ts';
import { SourceTypeNotSupportedError } from './errors.ts';
import { readContextOf, type ReadContextOptions } from './read-context.ts';

export type ConnectionTestOptions = ReadContextOptions;

/**
 * Checks that a source can be read, without loading anything: its files are listed, or its connector runs
 * until the first record arrives (credentials, address and the first page all proven). Returns a one-line
 * account; throws SyncFailedError with the cause.
 */
export async function testConnection(options: ConnectionTestOptions): Promise<string> {
  const { source, paths } = options;
  const loader = loaderFor(source);
  if (loader.unsupportedReason(source, paths.root) !== undefined) throw new SourceTypeNotSupportedError(source.name, source.type);
  return loader.probe(readContextOf(options));
}
