import type { ProjectPaths, SourceConfig } from '../config/index.ts';
import { loaderFor, type SourceTokens } from '../sources/index.ts';
import { SourceTypeNotSupportedError } from './errors.ts';

export interface ConnectionTestOptions {
  readonly source: SourceConfig;
  readonly paths: ProjectPaths;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly sourceTokens: SourceTokens;
  readonly now: () => Date;
  readonly signal: AbortSignal;
}

/**
 * Checks that a source can be read, without loading anything: its files are listed, or its connector runs
 * until the first record arrives (credentials, address and the first page all proven). Returns a one-line
 * account; throws SyncFailedError with the cause.
 */
export async function testConnection(options: ConnectionTestOptions): Promise<string> {
  const { source, paths, env, signal } = options;
  const loader = loaderFor(source);
  if (loader.unsupportedReason(source, paths.root) !== undefined) throw new SourceTypeNotSupportedError(source.name, source.type);
  return loader.probe({
    source, env, now: options.now, signal, projectDir: paths.root, runDir: paths.runDir,
    oauthAccessToken: (provider) => options.sourceTokens.accessToken(provider, env, signal),
  });
}
