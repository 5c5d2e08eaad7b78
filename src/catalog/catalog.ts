import { NotFoundError } from '../errors.ts';
import type { CatalogTable, ColumnProfile, Layer, Store } from '../store/index.ts';
import type { ModelSummary } from '../transform/index.ts';
import { quoteIdentifier, type QueryAnswer, type WarehouseReaders } from '../warehouse/index.ts';

export class TableNotFoundError extends NotFoundError {
  override readonly code = 'table_not_found';
  constructor(schema: string, name: string) {
    super(`No table ${schema}.${name} in the warehouse`);
  }
}

export interface CatalogOptions {
  readonly readers: WarehouseReaders;
  readonly store: Store;
  /** The models as last parsed (names, descriptions, dependencies). */
  readonly models: () => readonly ModelSummary[];
}

export interface TableSummary {
  readonly schema: string;
  readonly name: string;
  readonly layer: Layer;
  /** 'table' or 'view'; undefined until its first profile. */
  readonly kind: 'table' | 'view' | undefined;
  readonly rowCount: number;
  readonly columnCount: number | undefined;
  /** The source a raw table is loaded from. */
  readonly source: string | null;
  /** The model that builds a staging or marts table. */
  readonly model: string | null;
  readonly description: string;
  readonly updatedAt: string;
  readonly profiledAt: string | undefined;
}

export interface TableDetail extends TableSummary {
  readonly columns: readonly ColumnProfile[];
  readonly sample: QueryAnswer;
  /** Models this table is built from (for a model's table), and models built from this one. */
  readonly upstream: readonly string[];
  readonly downstream: readonly string[];
}

export interface SearchHit {
  readonly schema: string;
  readonly name: string;
  readonly layer: Layer;
  /** What matched: the table's name, one of its columns, or its model's description. */
  readonly match: 'table' | 'column' | 'description';
  readonly column: string | null;
}

const SAMPLE_ROWS = 50;
const SAMPLE_LIMITS = { maxRows: SAMPLE_ROWS, timeoutMs: 30_000 };
const MAX_HITS = 100;

/** What the warehouse holds, as the jobs recorded and profiled it: tables, columns, samples, lineage and search. */
export class Catalog {
  readonly #options: CatalogOptions;

  constructor(options: CatalogOptions) {
    this.#options = options;
  }

  tables(): TableSummary[] {
    const models = this.#modelsByName();
    return this.#options.store.tableProfiles.tables().map((table) => this.#summary(table, models));
  }

  /** A table's columns and profiles, its first rows (read now) and its lineage; TableNotFoundError when unknown. */
  async table(schema: string, name: string): Promise<TableDetail> {
    const table = this.#options.store.tableProfiles.table(schema, name);
    if (!table) throw new TableNotFoundError(schema, name);
    const models = this.#modelsByName();
    const summary = this.#summary(table, models);
    const sample = await this.#options.readers.run(`SELECT * FROM ${quoteIdentifier(schema)}.${quoteIdentifier(name)}`, SAMPLE_LIMITS);
    const builtBy = summary.model === null ? undefined : models.get(summary.model);
    const readsThis = (model: ModelSummary): boolean =>
      (summary.model !== null && model.dependsOn.includes(summary.model)) || model.sourceTables.some((source) => source.schema === schema && source.name === name);
    return {
      ...summary,
      columns: table.profile?.columns ?? [],
      sample,
      upstream: builtBy ? [...builtBy.dependsOn] : [],
      downstream: [...models.values()].filter(readsThis).map((model) => model.name),
    };
  }

  /** Tables whose name, a column's name or whose model's description contains `text` (case-insensitive). */
  search(text: string): SearchHit[] {
    const needle = text.trim().toLowerCase();
    if (needle === '') return [];
    const models = this.#modelsByName();
    const hits: SearchHit[] = [];
    for (const table of this.#options.store.tableProfiles.tables()) {
      const base = { schema: table.schema, name: table.name, layer: table.layer };
      if (`${table.schema}.${table.name}`.toLowerCase().includes(needle)) hits.push({ ...base, match: 'table', column: null });
      for (const column of table.profile?.columns ?? []) {
        if (column.name.toLowerCase().includes(needle)) hits.push({ ...base, match: 'column', column: column.name });
      }
      const description = this.#summary(table, models).description;
      if (description.toLowerCase().includes(needle)) hits.push({ ...base, match: 'description', column: null });
    }
    return hits.slice(0, MAX_HITS);
  }

  #summary(table: CatalogTable, models: ReadonlyMap<string, ModelSummary>): TableSummary {
    const model = table.layer === 'raw' ? undefined : models.get(table.name);
    return {
      schema: table.schema, name: table.name, layer: table.layer, kind: table.profile?.kind, rowCount: table.rowCount,
      columnCount: table.profile?.columns.length, source: table.sourceName, model: table.layer === 'raw' ? null : table.name,
      description: model?.description ?? '', updatedAt: table.updatedAt, profiledAt: table.profile?.profiledAt,
    };
  }

  #modelsByName(): Map<string, ModelSummary> {
    return new Map(this.#options.models().map((model) => [model.name, model]));
  }
}
