import type { DataRoots } from '../config/index.ts';
import type { SourceConfig } from '../sources/config/index.ts';
import { listCsvFiles, type CsvFileEntry, type CsvLocation } from '../sources/index.ts';
import type { JobRecord, LogEntry, Store } from '../store/index.ts';
import { SourceNotFoundError } from './errors.ts';

export const SOURCE_STATUSES = ['synced', 'syncing', 'failed', 'empty', 'not_synced', 'unknown'] as const;
export type SourceStatus = (typeof SOURCE_STATUSES)[number];

export interface SourceSummary {
  readonly name: string;
  readonly type: string;
  readonly enabled: boolean;
  readonly lastSync: string | null;
  readonly rowCount: number;
  readonly status: SourceStatus;
  /** Files the last sync, a success, skipped because DuckDB cannot read them. */
  readonly filesFailed: number;
  readonly freshness: { lastUpdate: string | null; daysOld: number | null };
  readonly tables: { name: string; rowCount: number; schema: string }[];
}

export interface SyncHistoryEntry {
  readonly timestamp: string;
  readonly status: string;
  readonly durationSeconds: number;
  readonly rowsProcessed: number;
  readonly fullRefresh: boolean;
  /** Files the sync skipped because DuckDB cannot read them; a sync with some is a success with a warning. */
  readonly filesFailed: number;
  /** The process that ran it (a worker's name, or host:pid); null for a sync of before. */
  readonly worker: string | null;
}

function statusOf(latest: JobRecord | undefined): SourceStatus {
  if (latest === undefined) return 'not_synced';
  switch (latest.status) {
    case 'queued':
    case 'running': return 'syncing';
    case 'failed':
    case 'interrupted': return 'failed';
    case 'success': return (latest.rows ?? 0) > 0 ? 'synced' : 'empty';
  }
}

/** What the sources list and details report, read from the platform DB only (never the warehouse). */
export async function summarizeSource(store: Store, source: SourceConfig, now: Date): Promise<SourceSummary> {
  try {
    const latest = await store.jobs.latest('sync', source.name);
    const lastSuccess = latest?.status === 'success' ? latest : await store.jobs.latestWithStatus('sync', source.name, 'success');
    const tables = await store.warehouseTables.forSource(source.name);
    const lastUpdate = lastSuccess?.finishedAt ?? null;
    return {
      name: source.name,
      type: source.type,
      enabled: source.enabled,
      lastSync: lastUpdate,
      rowCount: tables.reduce((sum, table) => sum + table.rowCount, 0),
      status: statusOf(latest),
      filesFailed: latest?.status === 'success' ? latest.filesFailed : 0,
      freshness: { lastUpdate, daysOld: lastUpdate === null ? null : Math.floor((now.getTime() - Date.parse(lastUpdate)) / 86_400_000) },
      tables: tables.map((table) => ({ name: table.name, rowCount: table.rowCount, schema: table.schema })),
    };
  } catch {
    return {
      name: source.name, type: source.type, enabled: source.enabled, lastSync: null, rowCount: 0, status: 'unknown', filesFailed: 0,
      freshness: { lastUpdate: null, daysOld: null }, tables: [],
    };
  }
}

export async function syncHistory(store: Store, source: string, limit: number): Promise<SyncHistoryEntry[]> {
  return (await store.jobs.history('sync', source, limit))
    .filter((job) => job.startedAt !== null && job.finishedAt !== null)
    .map((job) => ({
      timestamp: job.startedAt ?? job.createdAt,
      status: job.status,
      durationSeconds: Math.round((Date.parse(job.finishedAt ?? job.createdAt) - Date.parse(job.startedAt ?? job.createdAt)) / 10) / 100,
      rowsProcessed: job.rows ?? 0,
      fullRefresh: job.fullRefresh,
      filesFailed: job.filesFailed,
      worker: job.worker,
    }));
}

export function sourceLogs(store: Store, source: string | undefined, limit: number): Promise<LogEntry[]> {
  return store.logs.latest(limit, source);
}

/** What the API, pages and CLI report about sources, read from the platform DB only (never the warehouse). */
export class SourceReports {
  readonly #options: { store: Store; sources: readonly SourceConfig[]; now: () => Date };

  constructor(options: { store: Store; sources: readonly SourceConfig[]; now: () => Date }) {
    this.#options = options;
  }

  /** The source of that name; throws SourceNotFoundError. */
  source(name: string): SourceConfig {
    const { sources } = this.#options;
    const source = sources.find((candidate) => candidate.name === name);
    if (!source) throw new SourceNotFoundError(name, sources.map((candidate) => candidate.name));
    return source;
  }

  /** Every configured source's summary, in configuration order. */
  async summaries(): Promise<SourceSummary[]> {
    const now = this.#options.now();
    const summaries: SourceSummary[] = [];
    for (const source of this.#options.sources) summaries.push(await summarizeSource(this.#options.store, source, now));
    return summaries;
  }

  summary(name: string): Promise<SourceSummary> {
    return summarizeSource(this.#options.store, this.source(name), this.#options.now());
  }

  /** The source's finished syncs, newest first. */
  history(name: string, limit: number): Promise<SyncHistoryEntry[]> {
    return syncHistory(this.#options.store, this.source(name).name, limit);
  }

  /** The source's log, newest first. */
  logs(name: string, limit: number): Promise<LogEntry[]> {
    return sourceLogs(this.#options.store, this.source(name).name, limit);
  }

  /** The platform's whole activity log, newest first. */
  activity(limit: number): Promise<LogEntry[]> {
    return sourceLogs(this.#options.store, undefined, limit);
  }

  /** The files of a file source, on disk and as loaded (from its ledger); a file leading outside the data roots is not listed. */
  async files(name: string, location: CsvLocation, dataRoots: DataRoots): Promise<CsvFileEntry[]> {
    return listCsvFiles(location, await this.#options.store.fileLedger.forSource(name), dataRoots);
  }
}
