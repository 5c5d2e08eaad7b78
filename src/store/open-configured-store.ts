import type { ProjectConfig } from '../config/index.ts';
import { QuarryError, describeError } from '../errors.ts';
import { openPostgresStore, openStore, type PostgresStoreAddress, type Store, type StoreOptions } from './store.ts';

type PostgresStore = Extract<ProjectConfig['platform']['store'], { kind: 'postgres' }>;

/** A PostgreSQL store as people read it: its address (never a password) and schema. */
export function describePostgresStore(store: PostgresStore, schema: string): string {
  return `postgres://${store.user}@${store.host}:${String(store.port)}/${store.database} (schema ${schema})`;
}

/** Where the configured PostgreSQL store is, with the password its `password_env` names. */
export function postgresStoreAddress(store: PostgresStore, schema: string, password: string | undefined): PostgresStoreAddress {
  return { connection: { host: store.host, port: store.port, user: store.user, database: store.database, password }, schema };
}

/** The shared platform store cannot be reached, refused the login or could not be migrated: a start-up error that says which. */
export class PlatformStoreUnreachableError extends QuarryError {
  readonly code = 'platform_db_unavailable';
  constructor(store: PostgresStore, schema: string, cause: unknown) {
    super(`The platform store ${describePostgresStore(store, schema)} cannot be used: ${describeError(cause)}`, { cause });
  }
}

/** The platform store project.yml's `platform` names: the embedded file at `platformDb`, or a shared PostgreSQL database. */
export async function openConfiguredStore(
  platformDb: string, platform: ProjectConfig['platform'], env: Readonly<Record<string, string | undefined>>, options: StoreOptions = {},
): Promise<Store> {
  const store = platform.store;
  if (store.kind === 'sqlite') return openStore(platformDb, options);
  try {
    return await openPostgresStore(postgresStoreAddress(store, platform.schema, env[platform.password_env]), options);
  } catch (error) {
    throw new PlatformStoreUnreachableError(store, platform.schema, error);
  }
}
