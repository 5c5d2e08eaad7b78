import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ProjectPaths, SourceConfig } from '../config/index.ts';
import { connectorFor, listSourceFiles, SyncFailedError, type RecordSink, type SourceTokens } from '../sources/index.ts';
import { fileSourceLocation } from './job-runner.ts';
import { SourceTypeNotSupportedError } from './errors.ts';

/** Thrown by the probe sink at the first record: the connection works, nothing more is fetched. */
class FirstRecordReached extends Error {}

/** A sink that stops the extraction at the first record, remembering that it got that far. */
function probeSink(): { sink: RecordSink; reached: () => boolean } {
  let reached = false;
  const stop = (): never => {
    reached = true;
    throw new FirstRecordReached();
  };
  return {
    sink: {
      table: () => ({
        write: async (records) => { if (records.length > 0) stop(); },
        addFile: stop,
      }),
    },
    reached: () => reached,
  };
}

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
  const { source, paths } = options;
  const location = fileSourceLocation(source, paths.root);
  if (location !== undefined) {
    try {
      await access(location.directory);
    } catch {
      throw new SyncFailedError(`The directory ${location.directory} does not exist or cannot be read`);
    }
    const files = await listSourceFiles(location.directory, location.pattern);
    return `${String(files.length)} file(s) match ${location.pattern} in ${location.directory}`;
  }
  const connector = connectorFor(source);
  if (connector === undefined) throw new SourceTypeNotSupportedError(source.name, source.type);
  const scratch = path.join(paths.runDir, 'staging');
  await mkdir(scratch, { recursive: true });
  const workDir = await mkdtemp(path.join(scratch, 'test-'));
  const probe = probeSink();
  try {
    await connector.extract({
      source, env: options.env, state: { get: () => undefined, set: () => undefined }, fullRefresh: false, now: options.now(),
      signal: options.signal, workDir, projectDir: paths.root, log: () => undefined,
      oauthAccessToken: (provider) => options.sourceTokens.accessToken(provider, options.env, options.signal),
      onCommitted: () => undefined,
    }, probe.sink);
    return 'Connected; the source has no records yet';
  } catch (error) {
    // Some connectors wrap whatever their reader throws, the probe's stop included: the flag says what happened.
    if (probe.reached()) return 'Connected and read the first records';
    throw error;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
