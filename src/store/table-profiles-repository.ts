import type { PlatformDatabase } from './platform-database.ts';
import type { Layer } from './warehouse-tables-repository.ts';

export interface ColumnProfile {
  readonly name: string;
  /** DuckDB's type name. */
  readonly type: string;
  /** Share of rows where the column is null, 0 to 1. */
  readonly nullFraction: number;
  /** Count of distinct non-null values: exact when distinctExact, else DuckDB's estimate. */
  readonly distinctCount: number;
  /** Whether distinctCount was counted (a table small enough), not estimated. */
  readonly distinctExact: boolean;
  readonly min: string | null;
  readonly max: string | null;
  /** The most frequent values of a low-cardinality text column, most frequent first; empty otherwise. */
  readonly topValues: readonly { value: string | null; count: number }[];
}

export interface TableProfile {
  readonly schema: string;
  readonly name: string;
  readonly kind: 'table' | 'view';
  readonly columns: readonly ColumnProfile[];
  readonly profiledAt: string;
}

/** A warehouse table as the jobs recorded it, with its profile when one has been computed. */
export interface CatalogTable {
  readonly schema: string;
  readonly name: string;
  readonly layer: Layer;
  readonly sourceName: string | null;
  readonly rowCount: number;
  readonly updatedAt: string;
  readonly profile: TableProfile | undefined;
}

interface Row {
  schema_name: string; table_name: string; layer: Layer; source_name: string | null; row_count: number; updated_at: string;
  kind: 'table' | 'view' | null; columns: string | null; profiled_at: string | null;
}

/** Profiles of warehouse tables, kept beside what the jobs recorded of them (warehouse_tables). */
export class TableProfilesRepository {
  readonly #database: PlatformDatabase;
  constructor(database: PlatformDatabase) {
    this.#database = database;
  }

  /** Stores the profile computed for the table as it was at change number `generation` (from stale()). */
  async save(profile: TableProfile, generation: number): Promise<void> {
    await this.#database.run(`
      INSERT INTO table_profiles (schema_name, table_name, kind, columns, profiled_generation, profiled_at) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (schema_name, table_name) DO UPDATE SET
        kind = excluded.kind, columns = excluded.columns, profiled_generation = excluded.profiled_generation, profiled_at = excluded.profiled_at`,
      profile.schema, profile.name, profile.kind, JSON.stringify(profile.columns), generation, profile.profiledAt);
  }

  /** Tables changed since their profile was computed (or never profiled), with their change number now. */
  async stale(): Promise<{ schema: string; name: string; generation: number }[]> {
    const rows = await this.#database.all<{ schema_name: string; table_name: string; generation: number }>(`
      SELECT c.schema_name, c.table_name, c.generation FROM table_changes c
      JOIN warehouse_tables t ON t.schema_name = c.schema_name AND t.table_name = c.table_name
      LEFT JOIN table_profiles p ON p.schema_name = c.schema_name AND p.table_name = c.table_name
      WHERE p.profiled_generation IS NULL OR p.profiled_generation < c.generation
      ORDER BY c.schema_name, c.table_name`);
    return rows.map((row) => ({ schema: row.schema_name, name: row.table_name, generation: row.generation }));
  }

  /** Every recorded warehouse table with its latest profile, by schema and name. */
  async tables(): Promise<CatalogTable[]> {
    return this.#select('', []);
  }

  /** Every stored profile, of recorded tables and of tables only the lake knows (another host wrote them). */
  async profiles(): Promise<TableProfile[]> {
    const rows = await this.#database.all<{ schema_name: string; table_name: string; kind: 'table' | 'view'; columns: string; profiled_at: string }>(
      'SELECT schema_name, table_name, kind, columns, profiled_at FROM table_profiles ORDER BY schema_name, table_name');
    return rows.map((row) => ({
      schema: row.schema_name, name: row.table_name, kind: row.kind, columns: storedColumns(row.columns), profiledAt: row.profiled_at,
    }));
  }

  async table(schema: string, name: string): Promise<CatalogTable | undefined> {
    return (await this.#select('WHERE t.schema_name = ? AND t.table_name = ?', [schema, name]))[0];
  }

  async #select(where: string, parameters: string[]): Promise<CatalogTable[]> {
    const rows = await this.#database.all<Row>(`
      SELECT t.schema_name, t.table_name, t.layer, t.source_name, t.row_count, t.updated_at, p.kind, p.columns, p.profiled_at
      FROM warehouse_tables t LEFT JOIN table_profiles p ON p.schema_name = t.schema_name AND p.table_name = t.table_name
      ${where} ORDER BY t.schema_name, t.table_name`, ...parameters);
    return rows.map((row) => ({
      schema: row.schema_name, name: row.table_name, layer: row.layer, sourceName: row.source_name, rowCount: row.row_count, updatedAt: row.updated_at,
      profile: row.kind === null || row.columns === null || row.profiled_at === null ? undefined : {
        schema: row.schema_name, name: row.table_name, kind: row.kind, columns: storedColumns(row.columns), profiledAt: row.profiled_at,
      },
    }));
  }
}

/** A stored profile's columns; one stored before distinct values were ever counted holds estimates. */
function storedColumns(json: string): ColumnProfile[] {
  return (JSON.parse(json) as (Omit<ColumnProfile, 'distinctExact'> & { distinctExact?: boolean })[])
    .map((column) => ({ ...column, distinctExact: column.distinctExact ?? false }));
}
