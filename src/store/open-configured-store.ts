import type { ProjectConfig } from '../config/index.ts';
import { openPostgresStore, openStore, type Store, type StoreOptions } from './store.ts';

/** The platform store project.yml's `platform` names: the embedded file at `platformDb`, or a shared PostgreSQL database. */
export async function openConfiguredStore(
  platformDb: string, platform: ProjectConfig['platform'], env: Readonly<Record<string, string | undefined>>, options: StoreOptions = {},
): Promise<Store> {
  const store = platform.store;
  if (store.kind === 'sqlite') return openStore(platformDb, options);
  const connection = { host: store.host, port: store.port, user: store.user, database: store.database, password: env[platform.password_env] };
  return openPostgresStore({ connection, schema: platform.schema }, options);
}
