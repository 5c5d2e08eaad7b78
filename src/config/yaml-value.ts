/** A YAML mapping as parsed: a plain object, not a list or null. */
export function isMapping(value: unknown): value is Readonly<Record<string, unknown>> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** What a YAML author calls a value's kind: `mapping` and `list` rather than object and array. */
export function describeKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'object') return 'mapping';
  return typeof value;
}
