import { NotFoundError } from '../errors.ts';
import { SharedRuns } from '../shared-runs.ts';
import type { Logger } from '../logger.ts';
import type { CatalogTable, ColumnProfile, Layer, Store, TableProfile } from '../store/index.ts';
import type { ModelSummary } from '../transform/index.ts';
import {
  AnswerTooLargeError, catalogMissing, listLakeTables, QueryFailedError, quoteIdentifier, type LakeTable, type QueryAnswer, type WarehouseReaders,
} from '../warehouse/index.ts';
import type { TableProfiler } from './table-profiler.ts';

export class TableNotFoundError extends NotFoundError {
  override readonly code = 'table_not_found';
  constructor(schema: string, name: string) {
    super(`No table ${schema}.${name} in the warehouse`);
  }
}

export interface CatalogOptions {
  readonly readers: WarehouseReaders;
  readonly store: Store;
  /** Profiles on request the tables this Quarry's jobs did not record (another host's, with a shared lake). */
  readonly profiler: TableProfiler;
  readonly log: Logger;
  /** The models as last parsed (names, descriptions, dependencies). */
  readonly models: () => Promise<readonly ModelSummary[]>;
}

export interface TableSummary {
  readonly schema: string;
  readonly name: string;
  readonly layer: Layer;
  /** 'table' or 'view'. */
  readonly kind: 'table' | 'view';
  readonly rowCount: number;
  readonly columnCount: number | undefined;
  /** The source a raw table is loaded from, when this Quarry's syncs load it. */
  readonly source: string | null;
  /** The model that builds a staging or marts table. */
  readonly model: string | null;
  readonly description: string;
  /** When the lake's snapshot that last changed the table was committed. */
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

/** A lake table with what this Quarry knows of it: what its jobs recorded (none for another host's) and its profile. */
interface Entry {
  readonly lake: LakeTable;
  readonly layer: Layer;
  readonly recorded: CatalogTable | undefined;
  readonly profile: TableProfile | undefined;
}

const SAMPLE_ROWS = 50;
// A sample is a glance: the rows of a table of long values stop at a page's worth of text.
const SAMPLE_LIMITS = { maxRows: SAMPLE_ROWS, maxCharacters: 4 * 1024 * 1024, timeoutMs: 30_000 };
const MAX_HITS = 100;
const RAW_SCHEMA_PREFIX = 'raw_';

/**
 * What the warehouse holds: the lake's tables and views of the raw, staging and marts layers as its catalog
 * has them now (whichever host wrote them), with what this Quarry's jobs recorded (sources, profiles), their
 * columns, samples, lineage and search.
 */
export class Catalog {
  readonly #options: CatalogOptions;
  /** Profiles made on request, by table: the lake change each was made after, so a newer change is profiled again. */
  readonly #profiledAfter = new Map<string, string>();
  readonly #profiling = new SharedRuns<string, TableProfile | undefined>();

  constructor(options: CatalogOptions) {
    this.#options = options;
  }

  async tables(): Promise<TableSummary[]> {
    const models = await this.#modelsByName();
    return (await this.#entries()).map((entry) => this.#summary(entry, models));
  }

  /** Whether the lake has this table or view in one of the layers. */
  async has(schema: string, name: string): Promise<boolean> {
    return (await this.#entries({ schema, name })).length > 0;
  }

  /**
   * A table's columns and profiles, its first rows (read now) and its lineage; TableNotFoundError when the
   * lake has no such table (never had, or a full refresh, a restore or a removed model dropped it). A table
   * this Quarry's jobs did not record is profiled now, or shown without a profile when that fails.
   */
  async table(schema: string, name: string): Promise<TableDetail> {
    const [found] = await this.#entries({ schema, name });
    if (!found) throw new TableNotFoundError(schema, name);
    const entry = found.recorded ? found : { ...found, profile: await this.#currentProfile(found) };
    const models = await this.#modelsByName();
    const summary = this.#summary(entry, models);
    const sample = await this.#options.readers.run(`SELECT * FROM ${quoteIdentifier(schema)}.${quoteIdentifier(name)}`, SAMPLE_LIMITS).catch((error: unknown) => {
      // Its first row alone is more than a sample holds: the page shows the columns without rows.
      if (error instanceof AnswerTooLargeError) return { columns: error.columns, rows: [], truncated: true, elapsedMs: 0 };
      // Dropped between the listing and this read.
      if (error instanceof QueryFailedError && error.message.startsWith('Catalog Error')) throw new TableNotFoundError(schema, name);
      throw error;
    });
    const builtBy = summary.model === null ? undefined : models.get(summary.model);
    const readsThis = (model: ModelSummary): boolean =>
      (summary.model !== null && model.dependsOn.includes(summary.model)) || model.sourceTables.some((source) => source.schema === schema && source.name === name);
    return {
      ...summary,
      columns: entry.profile?.columns ?? [],
      sample,
      upstream: builtBy ? [...builtBy.dependsOn] : [],
      downstream: [...models.values()].filter(readsThis).map((model) => model.name),
    };
  }

  /** Tables whose name, a column's name or whose model's description contains `text` (case-insensitive). */
  async search(text: string): Promise<SearchHit[]> {
    const needle = text.trim().toLowerCase();
    if (needle === '') return [];
    const models = await this.#modelsByName();
    const hits: SearchHit[] = [];
    for (const entry of await this.#entries()) {
      const { schema, name } = entry.lake;
      const base = { schema, name, layer: entry.layer };
      if (`${schema}.${name}`.toLowerCase().includes(needle)) hits.push({ ...base, match: 'table', column: null });
      for (const column of entry.profile?.columns ?? []) {
        if (column.name.toLowerCase().includes(needle)) hits.push({ ...base, match: 'column', column: column.name });
      }
      const description = this.#summary(entry, models).description;
      if (description.toLowerCase().includes(needle)) hits.push({ ...base, match: 'description', column: null });
    }
    return hits.slice(0, MAX_HITS);
  }

  /** The lake's tables in a layer (a recorded table's, or by its schema), or the one named `only`, by schema and name. */
  async #entries(only?: { schema: string; name: string }): Promise<Entry[]> {
    const { readers, store } = this.#options;
    if (catalogMissing(readers.lake)) return [];
    const lakeTables = await readers.withReader((connection) => listLakeTables(connection, readers.lake, only));
    const recorded = new Map((await store.tableProfiles.tables()).map((table) => [keyOf(table.schema, table.name), table]));
    const profiles = new Map((await store.tableProfiles.profiles()).map((profile) => [keyOf(profile.schema, profile.name), profile]));
    return lakeTables.flatMap((lake) => {
      const key = keyOf(lake.schema, lake.name);
      const own = recorded.get(key);
      const layer = own?.layer ?? layerOfSchema(lake.schema);
      return layer === undefined ? [] : [{ lake, layer, recorded: own, profile: profiles.get(key) }];
    });
  }

  /** The stored profile of a table no job of this Quarry recorded when made after its last change, else one made now. */
  async #currentProfile(entry: Entry): Promise<TableProfile | undefined> {
    const { schema, name, changedAt } = entry.lake;
    const key = keyOf(schema, name);
    if (entry.profile !== undefined && this.#profiledAfter.get(key) === changedAt) return entry.profile;
    return this.#profiling.run(key, () => this.#options.profiler.profileNow(schema, name).then((profile) => {
      this.#profiledAfter.set(key, changedAt);
      return profile;
    }, (error: unknown) => {
      this.#options.log.warn({ err: error, table: `${schema}.${name}` }, 'profiling a table on request failed; it is shown with its previous profile or none');
      return entry.profile;
    }));
  }

  #summary(entry: Entry, models: ReadonlyMap<string, ModelSummary>): TableSummary {
    const { lake, layer, recorded, profile } = entry;
    const model = layer === 'raw' ? undefined : models.get(lake.name);
    return {
      schema: lake.schema, name: lake.name, layer, kind: lake.kind,
      // A view stores no rows: the count its model run recorded, when this Quarry ran it.
      rowCount: lake.kind === 'view' ? recorded?.rowCount ?? 0 : lake.rowCount,
      columnCount: profile?.columns.length, source: recorded?.sourceName ?? null, model: layer === 'raw' ? null : lake.name,
      description: model?.description ?? '', updatedAt: lake.changedAt, profiledAt: profile?.profiledAt,
    };
  }

  async #modelsByName(): Promise<Map<string, ModelSummary>> {
    return new Map((await this.#options.models()).map((model) => [model.name, model]));
  }
}

function keyOf(schema: string, name: string): string {
  return JSON.stringify([schema, name]);
}

function layerOfSchema(schema: string): Layer | undefined {
  if (schema.startsWith(RAW_SCHEMA_PREFIX)) return 'raw';
  return schema === 'staging' || schema === 'marts' ? schema : undefined;
}
