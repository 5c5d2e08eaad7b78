import type { DataRoots, ProjectPaths } from '../config/index.ts';
import { sourceEnvironment, type SourceConfig } from '../sources/config/index.ts';
import type { OutboundPolicy, ReadContext, SourceTokens } from '../sources/index.ts';

/** The platform parts reading a source draws on. */
export interface ReadContextOptions {
  readonly source: SourceConfig;
  readonly paths: ProjectPaths;
  /** The project's environment; a connector sees only the variables its source declares (sourceEnvironment). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly sourceTokens: SourceTokens;
  readonly outbound: OutboundPolicy;
  /** The only folders file sources read. */
  readonly dataRoots: DataRoots;
  readonly now: () => Date;
  readonly signal: AbortSignal;
  /** How long reading one spreadsheet may take (project.yml's limits.spreadsheet_seconds). */
  readonly spreadsheetSeconds: number;
}

/**
 * What reading `source` needs from the platform, for a sync and a connection test alike. Its environment holds only
 * the source's own variables, so no connector can send another's credential anywhere; the OAuth client secrets
 * are Quarry's and go only to the provider's token endpoint.
 */
export function readContextOf(options: ReadContextOptions): ReadContext {
  const { source, paths, env, now, signal, sourceTokens, outbound, dataRoots, spreadsheetSeconds } = options;
  return {
    source, env: sourceEnvironment(source, env), now, signal, projectDir: paths.root, runDir: paths.runDir, outbound, dataRoots, spreadsheetSeconds,
    oauthAccessToken: (provider) => sourceTokens.accessToken(provider, env, signal),
  };
}
