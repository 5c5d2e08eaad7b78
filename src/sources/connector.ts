import type { DateWindow } from './date-window.ts';
import type { OutboundPolicy } from './outbound/index.ts';
import type { SourceOAuthProviderName } from './source-oauth.ts';

/**
 * A source of sources.yml as a connector or loader is handed one, whatever its type: the fields the engine reads of
 * every source; a type's own fields are read with `sectionOf`. Not the registry's `SourceConfig`: the registry lists
 * every type, and so every connector and loader, in turn.
 */
export interface AnySource {
  readonly name: string;
  readonly type: string;
  /** Days re-loaded on an incremental sync; a full refresh ignores it. */
  readonly lookback_days?: number | undefined;
}

export type WriteDisposition = 'replace' | 'append' | 'merge' | 'history';

/**
 * How one raw table of a source is written: replaced whole, appended to, merged on its primary key,
 * or kept as a history of versions (`history`: rows carry valid_from, valid_to and is_current; a key
 * no longer extracted is closed, a new key is opened).
 */
export interface TableSpec {
  readonly name: string;
  readonly disposition: WriteDisposition;
  /** Required for `merge` and `history`: the columns that identify a record (a version, for `history`). */
  readonly primaryKey?: readonly string[];
  /**
   * For a `replace` table of dated rows (a report by day): the column, or struct field path, holding each
   * row's day, so a backfill replaces only the rows of its window.
   */
  readonly windowColumn?: string;
}

/** A file a connector produced whole (a database export, a pipeline's output), loaded by DuckDB's own reader. */
export interface StagedFile {
  readonly path: string;
  readonly format: 'jsonl' | 'csv' | 'parquet';
  /** Column → DuckDB type, for CSV whose types are known from the origin (no sniffing). */
  readonly columns?: Readonly<Record<string, string>>;
}

export interface TableWriter {
  write(records: readonly Record<string, unknown>[]): Promise<void>;
  addFile(file: StagedFile): void;
}

/** Where a connector puts what it extracted; nothing reaches the warehouse until the whole extraction succeeded. */
export interface RecordSink {
  table(spec: TableSpec): TableWriter;
}

export type ConnectorLogLevel = 'INFO' | 'WARNING';

/** A connector's saved position per resource (cursor values), committed only with the data it describes. */
export interface CursorState {
  get(resource: string): unknown;
  set(resource: string, value: unknown): void;
}

export interface ExtractContext {
  readonly source: AnySource;
  /** The project's environment (.env over the process's), where credentials are read by name. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly state: CursorState;
  readonly fullRefresh: boolean;
  /**
   * A backfill's days, which replace the start and end the connector computes from its section; cursors read
   * as unsaved meanwhile. Only `merge` tables are kept, so a connector should key what the window filters.
   */
  readonly window?: DateWindow | undefined;
  readonly now: Date;
  readonly signal: AbortSignal;
  /** The project's folder, where native pipelines find their Python modules. */
  readonly projectDir: string;
  /** Where connectors that need a scratch directory (Python pipelines) may write. */
  readonly workDir: string;
  readonly log: (level: ConnectorLogLevel, message: string) => void;
  /** A valid access token from what `quarry oauth setup <provider> --for sources` stored, refreshed when it expired. */
  readonly oauthAccessToken: (provider: SourceOAuthProviderName) => Promise<string>;
  /** Where the connector may connect: HTTP through the policy's dispatcher, drivers and brokers through its lookup or to the address it resolved. */
  readonly outbound: OutboundPolicy;
  /**
   * Registers work to run once the extracted data is committed to the warehouse (acknowledging a
   * queue's messages, say); never run when the sync fails. A failure of the work is logged as a warning.
   */
  readonly onCommitted: (work: () => Promise<void>) => void;
}

/** Extracts a source's records into a sink. Throws SyncFailedError with a one-line cause on any failure. */
export interface Connector {
  extract(context: ExtractContext, sink: RecordSink): Promise<void>;
}
