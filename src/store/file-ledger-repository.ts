import type { PlatformDatabase } from './platform-database.ts';

export interface LedgerEntry {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly sha256: string;
  readonly rows: number;
  readonly loadedAt: string;
  /** How the file was read (the loader's own JSON), or null when it was not read. */
  readonly reading: string | null;
  /** Why DuckDB could not read the file; null when it was read. */
  readonly error: string | null;
}

interface LedgerRow {
  path: string; size: number; mtime_ms: number; sha256: string; rows: number; loaded_at: string; reading: string | null; error: string | null;
}

/** Which file of a file source was loaded with which content, how it was read and how many rows, to make re-syncs incremental. */
export class FileLedgerRepository {
  readonly #database: PlatformDatabase;
  constructor(database: PlatformDatabase) {
    this.#database = database;
  }

  async forSource(source: string): Promise<Map<string, LedgerEntry>> {
    const rows = await this.#database.all<LedgerRow>(
      'SELECT path, size, mtime_ms, sha256, rows, loaded_at, reading, error FROM file_ledger WHERE source = ?', source,
    );
    return new Map(rows.map((row) => [row.path, {
      path: row.path, size: row.size, mtimeMs: row.mtime_ms, sha256: row.sha256, rows: row.rows, loadedAt: row.loaded_at, reading: row.reading, error: row.error,
    }]));
  }

  /** Replaces the source's whole ledger with what the warehouse now holds. */
  async replace(source: string, entries: readonly LedgerEntry[]): Promise<void> {
    await this.#database.transaction(async () => {
      await this.#database.run('DELETE FROM file_ledger WHERE source = ?', source);
      for (const entry of entries) {
        await this.#database.run(
          'INSERT INTO file_ledger (source, path, size, mtime_ms, sha256, rows, loaded_at, reading, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
          source, entry.path, entry.size, entry.mtimeMs, entry.sha256, entry.rows, entry.loadedAt, entry.reading, entry.error,
        );
      }
    });
  }

  /** Records the hash of a file as an entry describes it, unless a later sync has replaced that entry meanwhile. */
  async recordHash(source: string, entry: LedgerEntry, sha256: string): Promise<void> {
    await this.#database.run("UPDATE file_ledger SET sha256 = ? WHERE source = ? AND path = ? AND size = ? AND mtime_ms = ? AND sha256 = ''",
      sha256, source, entry.path, entry.size, entry.mtimeMs);
  }
}
