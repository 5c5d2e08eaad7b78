import { backup, DatabaseSync } from 'node:sqlite';

/**
 * Copies a SQLite database that another process may be writing, with SQLite's online backup: the copy
 * is one consistent state, where a plain copy of a WAL database can miss commits or catch a torn page.
 */
export async function copySqliteDatabase(from: string, to: string): Promise<void> {
  const source = new DatabaseSync(from, { readOnly: true });
  try {
    await backup(source, to);
  } finally {
    source.close();
  }
}
