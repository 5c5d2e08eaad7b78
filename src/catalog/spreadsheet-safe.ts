import type { QueryColumn } from '../warehouse/index.ts';

/** What a spreadsheet reads as a formula when a cell starts with it (OWASP's list for CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** Columns whose values a spreadsheet reads as numbers, never as formulas: -5 stays a number. */
const NUMERIC_TYPE = /^(U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)|FLOAT|DOUBLE|REAL|DECIMAL(\(\d+,\s*\d+\))?)$/i;

/** `text` as a spreadsheet shows it and never runs it: a leading `'` before what would start a formula. */
export function spreadsheetSafeText(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/**
 * The rows of a query for a CSV download: text cells that would start a formula (=HYPERLINK(...)) get a leading
 * `'`; cells of numeric columns are left as they are, since a spreadsheet reads them as numbers.
 */
export function spreadsheetSafeRows(columns: readonly QueryColumn[]): (row: readonly unknown[]) => unknown[] {
  const isNumeric = columns.map((column) => NUMERIC_TYPE.test(column.type));
  return (row) => row.map((value, index) => (typeof value === 'string' && isNumeric[index] !== true ? spreadsheetSafeText(value) : value));
}
