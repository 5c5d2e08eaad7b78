/**
 * The value at a dotted path such as `data.items` or `paging.next` (a leading `$.` is allowed, and `$`
 * alone is the whole value); numeric segments index arrays.
 */
export function valueAt(value: unknown, dottedPath: string): unknown {
  const trimmed = dottedPath.replace(/^\$\.?/, '');
  if (trimmed === '') return value;
  let current: unknown = value;
  for (const segment of trimmed.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}
