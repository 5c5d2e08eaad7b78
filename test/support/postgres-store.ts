import { randomBytes } from 'node:crypto';
import type { PostgresStoreAddress } from '../../src/store/index.ts';
import { LOCAL_POSTGRES, onPostgres } from './local-postgres.ts';

/** A platform store's place in the local PostgreSQL, in a schema of its own: `drop` removes it with everything in it. */
export function freshPostgresStore(): PostgresStoreAddress & { readonly url: string; drop(): Promise<void> } {
  const schema = `quarry_platform_${randomBytes(6).toString('hex')}`;
  return {
    connection: { ...LOCAL_POSTGRES },
    schema,
    url: `postgres://${LOCAL_POSTGRES.user}@${LOCAL_POSTGRES.host}:${String(LOCAL_POSTGRES.port)}/${LOCAL_POSTGRES.database}`,
    drop: () => onPostgres(async (client) => { await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`); }),
  };
}
