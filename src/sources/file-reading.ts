import { describeError } from '../errors.ts';
import { quoteLiteral, type DuckDBConnection } from '../warehouse/index.ts';
import type { FileFormat } from './list-source-files.ts';
import type { CsvReadOptions } from './type-definition/index.ts';

/** A column as DuckDB names and types it. */
export type Column = readonly [name: string, type: string];

type OptionValue = string | number | boolean | readonly string[] | Readonly<Record<string, string>>;

/**
 * How one file is read: for CSV the dialect DuckDB detected for that file alone (plus the options the source
 * fixes), so it is read exactly as DuckDB reads it alone; kept in the ledger with the file's hash.
 */
export interface FileReading {
  readonly format: FileFormat;
  /** `read_csv` options besides the columns; empty for JSON and Parquet, which DuckDB reads without options. */
  readonly options: Readonly<Record<string, OptionValue>>;
  readonly columns: readonly Column[];
  /** The source's explicit CSV options this reading was made with: when they change, the file is read anew. */
  readonly configured: string;
}

/** A file DuckDB itself cannot read; the message is DuckDB's own account, with the line where it has one. */
export class UnreadableFileError extends Error {
  readonly file: string;
  constructor(file: string, cause: unknown) {
    super(briefly(cause));
    this.file = file;
  }
}

/**
 * DuckDB's failures of the database, the machine or the object storage it reads from rather than of a file's
 * content (a full disk, no memory, an interrupt, a refused or dropped request): they fail the sync, leaving the
 * previous data, instead of setting a good file aside that would not be read again until it changes.
 */
const WAREHOUSE_FAILURE = /^(IO|Out of Memory|Fatal|Internal|Interrupt|Transaction(Context)?|HTTP) Error\b/;

/** Whether a failed load says nothing about the file being loaded. */
export function isWarehouseFailure(error: unknown): boolean {
  return WAREHOUSE_FAILURE.test(describeError(error));
}

/** Options that shape the columns: DuckDB applies them while sniffing, and the sniffed columns then carry them. */
const SHAPING_OPTIONS = new Set(['names', 'types', 'all_varchar', 'sample_size']);
/** What sniff_csv prints for an unset delimiter, quote, escape or comment. */
const EMPTY = '(empty)';

/** The configured options as a stable key, so a changed `csv:` section is noticed. */
export function configuredKey(explicit: CsvReadOptions | undefined): string {
  return JSON.stringify(Object.entries(explicit ?? {}).sort(([a], [b]) => a.localeCompare(b)));
}

/** Detects how DuckDB reads `file` alone; throws UnreadableFileError when it cannot. */
export async function detectFileReading(
  connection: DuckDBConnection, file: string, format: FileFormat, explicit: CsvReadOptions | undefined,
): Promise<FileReading> {
  const configured = configuredKey(explicit);
  try {
    if (format !== 'csv') {
      const described = await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${readerSql(file, { format, options: {}, columns: [], configured })}`);
      const columns = described.getRowObjects().map((row): Column => [writableName(String(row.column_name)), writableType(String(row.column_type))]);
      return { format, options: {}, columns, configured };
    }
    const given: [string, OptionValue][] = Object.entries(explicit ?? {});
    // As one JSON text: a result keeps a whole vector's room for each of its columns (2,048 values each) until the
    // garbage collector finalizes it, which a sync of a thousand files would otherwise hold hundreds of MB for.
    const sniffed = await connection.runAndReadAll(`SELECT to_json(sniffed)::VARCHAR AS reading FROM sniff_csv(${[quoteLiteral(file), ...given.map(optionSql)].join(', ')}) AS sniffed`);
    const json = sniffed.getRows()[0]?.[0];
    const row = typeof json === 'string' ? JSON.parse(json) as Record<string, unknown> : undefined;
    if (row === undefined) throw new Error('DuckDB detected nothing');
    const text = (value: unknown): string => (typeof value === 'string' && value !== EMPTY ? value : '');
    const options: Record<string, OptionValue> = {
      delim: text(row.Delimiter), quote: text(row.Quote), escape: text(row.Escape), new_line: text(row.NewLineDelimiter),
      skip: Number(row.SkipRows), comment: text(row.Comment), header: row.HasHeader === true,
    };
    // An ISO format is what DuckDB's own cast reads, and what it uses when the format is not given; given, the
    // format is applied strictly and refuses values the cast takes (a DATE column holding "INF").
    if (!isIsoFormat(row.DateFormat)) options.dateformat = text(row.DateFormat);
    if (!isIsoFormat(row.TimestampFormat)) options.timestampformat = text(row.TimestampFormat);
    for (const [name, value] of given) if (!SHAPING_OPTIONS.has(name)) options[name] = value;
    const columns = (row.Columns as { name: string; type: string }[]).map((column): Column => [writableName(column.name), column.type]);
    return { format, options, columns, configured };
  } catch (error) {
    throw new UnreadableFileError(file, error);
  }
}

/**
 * DuckDB reads a NUL inside a name (a JSON key "a\u0000b") but no SQL text can carry it, so such a name is
 * spelt with `_` in the table; files are inserted by position, so the file's own spelling never appears in SQL.
 */
function writableName(name: string): string {
  return name.replaceAll('\u0000', '_');
}

/** A nested type whose field names hold a NUL cannot be declared: its values are kept as text. */
function writableType(type: string): string {
  return type.includes('\u0000') ? 'VARCHAR' : type;
}

function isIsoFormat(format: unknown): boolean {
  return typeof format !== 'string' || format.startsWith('%Y-%m-%d');
}

/** The table function that reads `file` (a spreadsheet's stand-in, for one), or a list of files alike, as `reading` says. */
export function readerSql(file: string | readonly string[], reading: FileReading): string {
  const at = typeof file === 'string' ? quoteLiteral(file) : `[${file.map(quoteLiteral).join(', ')}]`;
  switch (reading.format) {
    case 'json': return `read_json(${at})`;
    case 'parquet': return `read_parquet(${at})`;
    // A spreadsheet is never read in this process: `file` is its Parquet stand-in (xlsx-stand-ins.ts).
    case 'xlsx': return `read_parquet(${at})`;
    case 'csv': {
      const columns = `columns = {${reading.columns.map(([name, type]) => `${quoteLiteral(name)}: ${quoteLiteral(type)}`).join(', ')}}`;
      return `read_csv(${[at, 'auto_detect = false', ...Object.entries(reading.options).map(optionSql), columns].join(', ')})`;
    }
  }
}

function optionSql([name, value]: readonly [string, OptionValue]): string {
  return `${name} = ${valueSql(value)}`;
}

function valueSql(value: OptionValue): string {
  if (typeof value === 'string') return quoteLiteral(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map((item: string) => quoteLiteral(item)).join(', ')}]`;
  return `{${Object.entries(value).map(([key, inner]) => `${quoteLiteral(key)}: ${quoteLiteral(inner)}`).join(', ')}}`;
}

/** The first line or two of a DuckDB error, which name the problem (and the line) without a wall of hints. */
function briefly(error: unknown): string {
  const text = describeError(error);
  return text.split('\n').filter((line) => line.trim() !== '').slice(0, 2).join(' ').slice(0, 500);
}
