/** dbt's multi-line error, as one line: "Runtime Error in model x (models/x.sql): Binder Error: ...". */
export function dbtErrorLine(message: string | null): string {
  const lines = (message ?? 'dbt reported an error').split('\n').map((line) => line.trim()).filter((line) => line !== '');
  return lines.slice(0, 2).join(': ');
}
