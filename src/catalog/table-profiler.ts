import type { Logger } from '../logger.ts';
import type { ColumnProfile, Store, TableProfile } from '../store/index.ts';
import { quoteIdentifier, quoteLiteral, type QueryAnswer, type ReadQueryLimits, type WarehouseReaders } from '../warehouse/index.ts';

export interface TableProfilerOptions {
  readonly readers: WarehouseReaders;
  readonly store: Store;
  readonly log: Logger;
  readonly now: () => Date;
  /** Past this many values (rows times columns) distinct values are estimated, not counted: EXACT_DISTINCT_VALUES unless set. */
  readonly exactDistinctValues?: number;
}

// Profiling reads whole tables: allowed longer than a user's query, and reads at most one row per column.
const PROFILE_LIMITS = { maxRows: 10_000, timeoutMs: 10 * 60_000 };
// A profile a request waits for (a table another host wrote): given up sooner, and the table shown without one.
const ON_DEMAND_LIMITS = { maxRows: 10_000, timeoutMs: 60_000 };
/** What a profile of a table this Quarry's jobs never recorded is stored at: any change a job records is newer. */
const UNRECORDED_GENERATION = 0;
/**
 * Distinct values are counted exactly where the table has at most this many values (rows times columns): a few
 * seconds of one reader. Past it the profile keeps DuckDB's HyperLogLog estimate (approx_unique), a few percent off.
 */
const EXACT_DISTINCT_VALUES = 20_000_000;
/** A text column with at most this many distinct values gets its top values. */
const LOW_CARDINALITY = 20;
const TOP_VALUES = 5;
/** A profile's text values (min, max, top values) are cut to this many characters: a glance, not the document a column may hold. */
const PROFILE_TEXT_CHARACTERS = 200;

/**
 * Profiles the warehouse tables that changed since their last profile (after each job that committed),
 * reading the current warehouse through a sandboxed reader, and stores the profiles in the platform DB.
 * One refresh at a time; a failure is logged and the table keeps its previous profile.
 */
export class TableProfiler {
  readonly #options: TableProfilerOptions;
  #running: Promise<void> = Promise.resolve();
  /** The refresh asked for that has not begun: later asks share it, since it reads what is stale as it begins. */
  #waiting: Promise<void> | undefined;

  constructor(options: TableProfilerOptions) {
    this.#options = options;
  }

  /** Profiles every stale table; resolves when they are stored. Never rejects. */
  refresh(): Promise<void> {
    if (this.#waiting !== undefined) return this.#waiting;
    const refresh = this.#running.then(() => {
      this.#waiting = undefined;
      return this.#refreshStale();
    });
    this.#waiting = refresh;
    this.#running = refresh;
    return refresh;
  }

  /**
   * Profiles one table now, once any refresh running has ended, and stores the profile: for a table this
   * Quarry's jobs did not record (another host wrote it), which the refreshes after its own jobs never see.
   * Rejects when profiling fails or runs past a minute.
   */
  profileNow(schema: string, name: string): Promise<TableProfile> {
    const profiled = this.#running.then(async () => {
      const profile = await this.#profile(schema, name, ON_DEMAND_LIMITS);
      await this.#options.store.tableProfiles.save(profile, UNRECORDED_GENERATION);
      return profile;
    });
    this.#running = profiled.then(() => undefined, () => undefined);
    return profiled;
  }

  /** Resolves when no refresh is running (before the platform database closes). */
  idle(): Promise<void> {
    return this.#running;
  }

  async #refreshStale(): Promise<void> {
    const { store, log } = this.#options;
    // The platform store out of reach a moment: the next refresh (the next job, or the sweep) tries again.
    const stale = await store.tableProfiles.stale().catch((error: unknown) => {
      log.warn({ err: error }, 'reading which warehouse tables changed failed; their profiles are refreshed later');
      return [];
    });
    for (const table of stale) {
      try {
        await store.tableProfiles.save(await this.#profile(table.schema, table.name, PROFILE_LIMITS), table.generation);
      } catch (error) {
        log.warn({ err: error, table: `${table.schema}.${table.name}` }, 'profiling a warehouse table failed; it keeps its previous profile');
      }
    }
  }

  async #profile(schema: string, name: string, limits: ReadQueryLimits): Promise<TableProfile> {
    const relation = `${quoteIdentifier(schema)}.${quoteIdentifier(name)}`;
    const kinds = await this.#read(limits, `SELECT table_type FROM information_schema.tables WHERE table_catalog = current_database() AND table_schema = ${quoteLiteral(schema)} AND table_name = ${quoteLiteral(name)}`);
    const summary = await this.#read(limits, `SUMMARIZE ${relation}`);
    const at = (column: string): number => summary.columns.findIndex((candidate) => candidate.name === column);
    const [nameAt, typeAt, minAt, maxAt, uniqueAt, nullsAt, countAt] = ['column_name', 'column_type', 'min', 'max', 'approx_unique', 'null_percentage', 'count'].map(at);
    const cellOf = (row: readonly unknown[], index: number | undefined): string | null => {
      const value = index === undefined ? null : row[index] ?? null;
      return value === null ? null : typeof value === 'string' ? value : JSON.stringify(value);
    };
    const names = summary.rows.map((row) => cellOf(row, nameAt) ?? '');
    const rowCount = Number(summary.rows[0] === undefined ? 0 : cellOf(summary.rows[0], countAt) ?? 0);
    const exact = rowCount * names.length <= (this.#options.exactDistinctValues ?? EXACT_DISTINCT_VALUES) ? await this.#exactDistinctCounts(relation, names, limits) : undefined;
    const columns: ColumnProfile[] = [];
    for (const [index, row] of summary.rows.entries()) {
      const cell = (at: number | undefined): string | null => cellOf(row, at);
      const column = names[index] ?? '';
      const type = cell(typeAt) ?? '';
      const distinctCount = exact?.[index] ?? Number(cell(uniqueAt) ?? 0);
      const lowCardinalityText = type === 'VARCHAR' && distinctCount <= LOW_CARDINALITY;
      columns.push({
        name: column, type, nullFraction: Number(cell(nullsAt) ?? 0) / 100, distinctCount, distinctExact: exact !== undefined,
        min: shortened(cell(minAt)), max: shortened(cell(maxAt)),
        topValues: lowCardinalityText ? await this.#topValues(relation, column, limits) : [],
      });
    }
    return { schema, name, kind: kinds.rows[0]?.[0] === 'VIEW' ? 'view' : 'table', columns, profiledAt: this.#options.now().toISOString() };
  }

  /** Each column's count of distinct non-null values, in one scan; undefined where DuckDB cannot count one (the estimate stands). */
  async #exactDistinctCounts(relation: string, columns: readonly string[], limits: ReadQueryLimits): Promise<number[] | undefined> {
    if (columns.length === 0) return [];
    const counts = columns.map((column) => `count(DISTINCT ${quoteIdentifier(column)})`).join(', ');
    try {
      const answer = await this.#read(limits, `SELECT ${counts} FROM ${relation}`);
      return (answer.rows[0] ?? []).map(Number);
    } catch (error) {
      this.#options.log.warn({ err: error, table: relation }, 'counting distinct values exactly failed; the profile keeps the estimates');
      return undefined;
    }
  }

  async #topValues(relation: string, column: string, limits: ReadQueryLimits): Promise<{ value: string | null; count: number }[]> {
    const top = await this.#read(limits, `SELECT ${quoteIdentifier(column)}::VARCHAR AS value, count(*) AS n FROM ${relation} GROUP BY 1 ORDER BY n DESC, value NULLS LAST LIMIT ${String(TOP_VALUES)}`);
    return top.rows.map(([value, count]) => ({ value: typeof value === 'string' ? shortened(value) : null, count: Number(count) }));
  }

  #read(limits: ReadQueryLimits, sql: string): Promise<QueryAnswer> {
    return this.#options.readers.run(sql, limits);
  }
}

/** `text` cut to PROFILE_TEXT_CHARACTERS, ending in "…" when it was longer (never within a surrogate pair). */
function shortened(text: string | null): string | null {
  if (text === null || text.length <= PROFILE_TEXT_CHARACTERS) return text;
  const cut = /[\uD800-\uDBFF]$/.test(text.slice(0, PROFILE_TEXT_CHARACTERS)) ? PROFILE_TEXT_CHARACTERS - 1 : PROFILE_TEXT_CHARACTERS;
  return `${text.slice(0, cut)}…`;
}
