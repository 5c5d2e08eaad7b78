import type { DataRoots } from '../config/index.ts';
import type { LedgerEntry } from '../store/index.ts';
import type { LakeWrite, WriteOpening } from '../warehouse/index.ts';
import type { AnySource, ConnectorLogLevel } from './connector.ts';
import type { DateWindow } from './date-window.ts';
import type { OutboundPolicy } from './outbound/index.ts';
import type { SourceOAuthProviderName } from './source-oauth.ts';

export interface LoadMessage {
  readonly level: ConnectorLogLevel;
  readonly message: string;
}

/** Where a file source's files are: a folder on this machine and the pattern its files match. */
export interface FileLocation {
  readonly directory: string;
  /** The field of the source's section that names the folder (`directory`, `bucket_url`). */
  readonly field: string;
  readonly pattern: string;
}

/** What reading a source needs from the platform, for a sync and for a connection test alike. */
export interface ReadContext {
  readonly source: AnySource;
  /** The project's environment (.env over the process's), where credentials are read by name. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: () => Date;
  readonly signal: AbortSignal;
  /** The project's folder: relative paths in sources.yml and native pipelines' modules are found from it. */
  readonly projectDir: string;
  /** The platform's scratch folder (`.quarry/run`). */
  readonly runDir: string;
  readonly oauthAccessToken: (provider: SourceOAuthProviderName) => Promise<string>;
  /** The only folders a file source reads: a file whose real path is elsewhere is skipped. */
  readonly dataRoots: DataRoots;
  /** Where the source may connect: its HTTP requests go through the policy's dispatcher, its drivers check hosts first. */
  readonly outbound: OutboundPolicy;
  /** How long reading one spreadsheet may take before it is set aside (project.yml's limits.spreadsheet_seconds). */
  readonly spreadsheetSeconds: number;
}

/** A sync of one source, as the job runner hands it to the type's loader. */
export interface LoadContext extends ReadContext {
  readonly jobId: number;
  readonly fullRefresh: boolean;
  /** A backfill's days: only they are re-loaded and merged, the rest and the saved cursors stay as they are. */
  readonly window?: DateWindow | undefined;
  readonly log: (level: ConnectorLogLevel, message: string) => void;
  /** How far the extraction has come, so far; called as often as it moves (the job throttles what it tells). */
  readonly progress: (done: SyncProgress) => void;
  /** The cursors the last successful sync committed; empty on a full refresh. */
  readonly savedCursors: () => Promise<ReadonlyMap<string, unknown>>;
  /** The files the last successful sync loaded. */
  readonly ledger: () => Promise<ReadonlyMap<string, LedgerEntry>>;
  /**
   * Runs `work` as the lake's one writer, every transaction a snapshot labelled with the sync's job (JobTools.write);
   * readers see what it committed from then on. Within the sync's own turn when the loader's `lockScope` is `sync`.
   */
  readonly write: <T>(work: (write: LakeWrite) => Promise<T>, opening?: WriteOpening) => Promise<T>;
}

/** How far a sync's extraction has come: records read, and the pages (batches) they came in. */
export interface SyncProgress {
  readonly rows: number;
  readonly pages: number;
}

/** What a sync changed, recorded by the job runner in one transaction with the job's end. */
export interface LoadOutcome {
  readonly rows: number;
  readonly tables: { schema: string; name: string; rowCount: number }[];
  readonly messages: LoadMessage[];
  /** For file sources: the files now loaded. */
  readonly ledger?: LedgerEntry[];
  /** For extracted sources: the cursors to save with the data they describe. */
  readonly cursors?: ReadonlyMap<string, unknown>;
  /** For file sources: files DuckDB cannot read, skipped (the sync succeeds with a warning). */
  readonly filesFailed?: number;
}

/**
 * How one source type's data reaches the warehouse; each type declares one (`sources/types/`). File sources
 * are read by DuckDB itself, so their whole sync is one turn of the lake's writer (`lockScope: 'sync'`); the
 * others extract first, beside other jobs, and wait for the writer only to load (`'load'`).
 */
export interface SourceLoader {
  readonly lockScope: 'sync' | 'load';
  /** The local folder a file source reads; undefined for every other source (and for files in object storage). */
  fileLocation(source: AnySource, projectDir: string): FileLocation | undefined;
  /** The prefix of object storage a file source reads (`s3://bucket/folder`); undefined for every other source. */
  objectsPrefix(source: AnySource, projectDir: string): string | undefined;
  /** Why this source cannot be synced on this machine, or undefined when it can; checked before a job is queued. */
  unsupportedReason(source: AnySource, projectDir: string): string | undefined;
  load(context: LoadContext): Promise<LoadOutcome>;
  /** Proves the source can be read without loading anything; returns a one-line account, throws SyncFailedError with the cause. */
  probe(context: ReadContext): Promise<string>;
}
