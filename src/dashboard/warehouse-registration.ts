import type { Logger } from '../logger.ts';
import { catalogMissing, type LakeLocation } from '../warehouse/index.ts';
import type { SupersetApi } from './superset-api.ts';
import type { SupersetRoles } from './superset-roles.ts';

/** The Superset database that stands for the warehouse (the lake). */
export const WAREHOUSE_DATABASE = 'warehouse';
/** Its URI: superset_config.py's connection mutator opens the lake through the reader sandbox for exactly this one. */
export const WAREHOUSE_URI = 'duckdb:///quarry_lake';
export interface TableName { readonly schema: string; readonly name: string }

export interface RegisteredWarehouse {
  readonly id: number;
  readonly name: string;
  /** `schema.table` of every dataset on it. */
  readonly datasets: readonly string[];
  readonly refreshedAt: string;
}

interface DatasetRow { id: number; schema: string | null; table_name: string }
interface PermissionRow { id: number; permission: { name: string }; view_menu: { name: string } }

/**
 * Keeps the warehouse (the lake) registered in Superset: one read-only DuckDB database (the connection
 * mutator in superset_config.py enforces read-only and the sandbox whatever is registered), viewers
 * granted access to it, and a dataset per marts table with its columns refreshed after each change.
 */
export class WarehouseRegistration {
  readonly #api: SupersetApi;
  readonly #roles: SupersetRoles;
  readonly #lake: LakeLocation;
  readonly #log: Logger;
  readonly #now: () => Date;
  #registered: RegisteredWarehouse | undefined;
  #datasetIds: ReadonlyMap<string, number> = new Map();
  /** The database id viewers were last granted, so the grant is not repeated on every refresh. */
  #grantedDatabaseId: number | undefined;

  constructor(options: { api: SupersetApi; roles: SupersetRoles; lake: LakeLocation; log: Logger; now: () => Date }) {
    this.#api = options.api;
    this.#roles = options.roles;
    this.#lake = options.lake;
    this.#log = options.log;
    this.#now = options.now;
  }

  current(): RegisteredWarehouse | undefined {
    return this.#registered;
  }

  /** Superset (re)started: its metadata DB may be new, so the viewers' grant is made again. */
  supersetRestarted(): void {
    this.#grantedDatabaseId = undefined;
    this.#registered = undefined;
    this.#datasetIds = new Map();
  }

  /**
   * Registers the lake once it exists (a project that never synced has none: undefined), grants
   * viewers access, and brings the datasets in line with `martsTables`.
   */
  async refresh(martsTables: readonly TableName[]): Promise<RegisteredWarehouse | undefined> {
    if (catalogMissing(this.#lake)) return undefined;
    const databaseId = await this.#ensureDatabase();
    if (this.#grantedDatabaseId !== databaseId) {
      await this.#grantViewers(databaseId);
      this.#grantedDatabaseId = databaseId;
    }
    this.#datasetIds = await this.#syncDatasets(databaseId, martsTables);
    this.#registered = { id: databaseId, name: WAREHOUSE_DATABASE, datasets: [...this.#datasetIds.keys()].sort(), refreshedAt: this.#now().toISOString() };
    return this.#registered;
  }

  /** The dataset id of `schema.table` on the warehouse database, as the last refresh found it. */
  datasetId(table: TableName): number | undefined {
    return this.#datasetIds.get(`${table.schema}.${table.name}`);
  }

  async #ensureDatabase(): Promise<number> {
    const databases = await this.#api.list<{ id: number; database_name: string }>('/api/v1/database/', { col: 'database_name', opr: 'eq', value: WAREHOUSE_DATABASE });
    const existing = databases.find((database) => database.database_name === WAREHOUSE_DATABASE);
    const fields = { sqlalchemy_uri: WAREHOUSE_URI, expose_in_sqllab: true, allow_dml: false, allow_run_async: false, allow_file_upload: false };
    if (existing === undefined) {
      const created = await this.#api.request<{ id: number }>('POST', '/api/v1/database/', { database_name: WAREHOUSE_DATABASE, ...fields });
      this.#log.info({ databaseId: created.id }, 'registered the warehouse in the dashboard tool');
      return created.id;
    }
    // A registration from before the lake named the replica's file: the URI is brought in line.
    await this.#api.request('PUT', `/api/v1/database/${String(existing.id)}`, fields);
    return existing.id;
  }

  /** Gives the viewer role `database_access` on the warehouse database beside its reads (without it, no chart data). */
  async #grantViewers(databaseId: number): Promise<void> {
    const resource = `[${WAREHOUSE_DATABASE}].(id:${String(databaseId)})`;
    const permissions = await this.#api.list<PermissionRow>('/api/v1/security/permissions-resources/');
    const permission = permissions.find((row) => row.permission.name === 'database_access' && row.view_menu.name === resource);
    if (permission === undefined) throw new Error(`Superset has no database_access permission on ${resource}`);
    await this.#roles.grantViewer([permission.id]);
  }

  /** Every dataset on the database by `schema.table`, the marts tables' created or refreshed. */
  async #syncDatasets(databaseId: number, martsTables: readonly TableName[]): Promise<Map<string, number>> {
    const existing = await this.#api.list<DatasetRow>('/api/v1/dataset/', { col: 'database', opr: 'rel_o_m', value: databaseId });
    for (const table of martsTables) {
      const dataset = existing.find((row) => row.schema === table.schema && row.table_name === table.name);
      if (dataset === undefined) {
        const created = await this.#api.request<{ id: number }>('POST', '/api/v1/dataset/', { database: databaseId, schema: table.schema, table_name: table.name });
        existing.push({ id: created.id, schema: table.schema, table_name: table.name });
        this.#log.info({ table: `${table.schema}.${table.name}` }, 'dataset added to the dashboard tool');
      } else {
        // A model may have gained or lost columns: Superset re-reads them from the replica.
        await this.#api.request('PUT', `/api/v1/dataset/${String(dataset.id)}/refresh`);
      }
    }
    return new Map(existing.map((row) => [`${row.schema ?? ''}.${row.table_name}`, row.id]));
  }
}
