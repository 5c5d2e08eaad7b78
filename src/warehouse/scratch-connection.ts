import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { extensionFile } from './lake-location.ts';
import { quoteLiteral } from './sql.ts';

/** A DuckDB of its own, in memory, apart from the lake: for work such as reading another database through its scanner. */
export interface ScratchConnection {
  readonly connection: DuckDBConnection;
  close(): void;
}

/**
 * The options of a DuckDB instance that runs only SQL Quarry builds (names and values quoted), never a user's:
 * the scratch instance and the lake's writer. LOAD checks a signed extension's signature on every load: 250-300 ms
 * for these 35-40 MB files (1-3 ms without), a quarter of a 1M-row database sync. The files are the ones bin/setup
 * installed beside our own code, loaded by path; nothing is downloaded. Readers, which run users' SQL, keep the check.
 */
export const QUARRY_SQL_ONLY_INSTANCE_OPTIONS: Readonly<Record<string, string>> = {
  autoinstall_known_extensions: 'false', autoload_known_extensions: 'false', allow_unsigned_extensions: 'true',
};

/** Opens an in-memory DuckDB with the named extensions loaded by path from the folder bin/setup fills (nothing is downloaded). */
export async function openScratchConnection(extensions: readonly string[]): Promise<ScratchConnection> {
  const instance = await DuckDBInstance.create(':memory:', { ...QUARRY_SQL_ONLY_INSTANCE_OPTIONS });
  try {
    const connection = await instance.connect();
    try {
      for (const name of extensions) await connection.run(`LOAD ${quoteLiteral(extensionFile(name))}`);
    } catch (error) {
      connection.closeSync();
      throw error;
    }
    let closed = false;
    return {
      connection,
      close: () => {
        if (closed) return;
        closed = true;
        connection.closeSync();
        instance.closeSync();
      },
    };
  } catch (error) {
    instance.closeSync();
    throw error;
  }
}
