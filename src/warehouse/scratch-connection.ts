import type { DuckDBConnection } from '@duckdb/node-api';
import { closeJobInstance, createJobInstance } from './job-instance.ts';
import { extensionFile } from './lake-location.ts';
import { quoteLiteral } from './sql.ts';

/** A DuckDB of its own, in memory, apart from the lake: for work such as reading another database through its scanner. */
export interface ScratchConnection {
  readonly connection: DuckDBConnection;
  close(): Promise<void>;
}

/** Opens an in-memory DuckDB with the named extensions loaded by path from the folder bin/setup fills (nothing is downloaded). */
export async function openScratchConnection(extensions: readonly string[]): Promise<ScratchConnection> {
  const instance = await createJobInstance();
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
      close: async () => {
        if (closed) return;
        closed = true;
        await closeJobInstance(instance, connection);
      },
    };
  } catch (error) {
    instance.closeSync();
    throw error;
  }
}
