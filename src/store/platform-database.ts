/** A value a statement takes or a column holds: the platform database keeps booleans as 0 and 1 and times as ISO text. */
export type SqlValue = string | number | null;

/**
 * The platform database as the repositories see it, whichever engine holds it: the embedded SQLite file or a
 * PostgreSQL database that every process of a deployment shares. Statements are written once, in the SQL both
 * engines read, with `?` for each parameter. Whole numbers come back as numbers on both.
 */
export interface PlatformDatabase {
  readonly engine: 'sqlite' | 'postgres';
  /** The first row the statement returns, if any. */
  get<Row>(sql: string, ...params: SqlValue[]): Promise<Row | undefined>;
  all<Row>(sql: string, ...params: SqlValue[]): Promise<Row[]>;
  /** Runs a statement that returns no rows; answers how many rows it changed. */
  run(sql: string, ...params: SqlValue[]): Promise<number>;
  /**
   * Runs `work` in one transaction: every statement of the repositories it calls, however deep, joins it (a
   * transaction inside it joins it too), and statements of other callers wait until it ends. It commits when
   * `work` resolves and rolls back when it throws.
   */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
