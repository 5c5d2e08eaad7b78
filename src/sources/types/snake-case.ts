/** A vendor's name for a table or column as a SQL-friendly one: `Unit Price (EUR)` → unit_price_eur, `sessionSource` → session_source. */
export function snakeCase(text: string): string {
  return text
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** A JSON value with every object key in snake_case, at any depth. */
export function snakeCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeCaseKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [snakeCase(key), snakeCaseKeys(inner)]));
}
