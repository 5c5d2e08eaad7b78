/** `my "table"` → `"my ""table"""`: safe for any name. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A SQL string literal for a value that cannot be bound as a parameter (file lists for read_csv). */
export function quoteLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
