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
