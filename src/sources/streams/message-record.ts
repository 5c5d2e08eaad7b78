/** The columns every message carries beside its payload's; the leading underscore keeps them apart from payload fields. */
export interface MessageMetadata {
  readonly [column: `_${string}`]: string | number | Readonly<Record<string, string>> | null;
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes as text when they are UTF-8, else undefined. */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * One message as one warehouse row: a JSON object payload gives its fields as columns (nested
 * objects load as STRUCT, arrays as LIST); any other payload lands whole in `value` as text, or in
 * `value_base64` when it is not UTF-8, so no message is dropped or altered.
 */
export function messageRecord(payload: Uint8Array | null, metadata: MessageMetadata): Record<string, unknown> {
  if (payload === null) return { ...metadata, value: null };
  const text = utf8Text(payload);
  if (text === undefined) return { ...metadata, value_base64: Buffer.from(payload).toString('base64') };
  const parsed = parseJsonObject(text);
  return parsed === undefined ? { ...metadata, value: text } : { ...parsed, ...metadata };
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}

/** Message headers as one object column (a STRUCT); a header sent several times keeps its values joined by commas. */
export function headerColumn(headers: Iterable<readonly [string, readonly string[]]>): Readonly<Record<string, string>> | null {
  const entries = [...headers].map(([name, values]) => [name, values.join(',')] as const);
  return entries.length === 0 ? null : Object.fromEntries(entries);
}
