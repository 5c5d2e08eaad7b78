import type { DatabaseSync } from 'node:sqlite';

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
  readonly #database: DatabaseSync;
  constructor(database: DatabaseSync) {
    this.#database = database;
  }

  forSource(source: string): Map<string, LedgerEntry> {
    const rows = this.#database.prepare('SELECT path, size, mtime_ms, sha256, rows, loaded_at, reading, error FROM file_ledger WHERE source = ?')
      .all(source) as unknown as LedgerRow[];
    return new Map(rows.map((row) => [row.path, {
      path: row.path, size: row.size, mtimeMs: row.mtime_ms, sha256: row.sha256, rows: row.rows, loadedAt: row.loaded_at, reading: row.reading, error: row.error,
    }]));
  }

  /** Replaces the source's whole ledger with what the warehouse now holds. */
  replace(source: string, entries: readonly LedgerEntry[]): void {
    this.#database.prepare('DELETE FROM file_ledger WHERE source = ?').run(source);
    const insert = this.#database.prepare(
      'INSERT INTO file_ledger (source, path, size, mtime_ms, sha256, rows, loaded_at, reading, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const entry of entries) {
      insert.run(source, entry.path, entry.size, entry.mtimeMs, entry.sha256, entry.rows, entry.loadedAt, entry.reading, entry.error);
    }
  }

  /** Records the hash of a file as an entry describes it, unless a later sync has replaced that entry meanwhile. */
  recordHash(source: string, entry: LedgerEntry, sha256: string): void {
    this.#database.prepare("UPDATE file_ledger SET sha256 = ? WHERE source = ? AND path = ? AND size = ? AND mtime_ms = ? AND sha256 = ''")
      .run(sha256, source, entry.path, entry.size, entry.mtimeMs);
  }
}
