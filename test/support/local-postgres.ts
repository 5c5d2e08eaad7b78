import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

/** The local PostgreSQL the tests use (trust authentication), database `test`. */
export const LOCAL_POSTGRES = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' } as const;

/** Runs `work` on a connection of its own to the local PostgreSQL, as `user` (the superuser unless told). */
export async function onPostgres<T>(work: (client: pg.Client) => Promise<T>, user: string = LOCAL_POSTGRES.user): Promise<T> {
  const client = new pg.Client({ ...LOCAL_POSTGRES, user });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A lake shared the way two hosts share one: the catalog in the local PostgreSQL (schema `schema`), the Parquet
 * files in `<shared>/lake`, and an `orders` source reading `<shared>/files` (a data root), where a.csv (3 rows) is written.
 * Returns the startQuarry options every service of the lake starts with.
 */
export function sharedLakeServiceOptions(shared: string, schema: string) {
  mkdirSync(path.join(shared, 'files'), { recursive: true });
  writeFileSync(path.join(shared, 'files', 'a.csv'), 'id,region,amount\n1,north,10\n2,south,20\n3,north,5\n');
  return {
    sourcesYaml: `sources:\n  - name: orders\n    type: local_files\n    local_files: { directory: ${JSON.stringify(path.join(shared, 'files'))} }\n`,
    projectConfig: {
      warehouse: { catalog: 'postgres://postgres@127.0.0.1:5432/test', metadata_schema: schema, data_path: path.join(shared, 'lake') },
      watcher: { enabled: false },
      data_roots: ['data', path.join(shared, 'files')],
    },
  };
}
