/** A column of a database table, with the DuckDB type its values load as. */
export interface ExportColumn {
  readonly name: string;
  readonly duckdbType: string;
}

export interface TableDescription {
  readonly columns: readonly ExportColumn[];
  readonly primaryKey: readonly string[];
}

/** Rows with the cursor column past a value (every row when `after` is undefined). */
export interface CursorRange {
  readonly column: string;
  readonly after: string | undefined;
}

export interface ExportResult {
  /** The highest cursor value exported, as text; undefined when there were no rows past the cursor. */
  readonly highest: string | undefined;
  readonly exported: boolean;
}

/** Reads a relational database's tables out as Parquet files, all of them in one consistent snapshot. */
export interface DatabaseReader {
  readonly defaultSchema: string;
  listTables(schema: string): Promise<string[]>;
  describe(schema: string, table: string): Promise<TableDescription>;
  /** Stops early, the remote query cancelled, when `signal` aborts (the service is stopping). */
  exportParquet(schema: string, table: string, description: TableDescription, range: CursorRange | undefined, file: string, signal: AbortSignal): Promise<ExportResult>;
  close(): Promise<void>;
}
