import {
  DuckDBDateValue, DuckDBTimestampMillisecondsValue, DuckDBTimestampNanosecondsValue, DuckDBTimestampSecondsValue, JsonDuckDBValueConverter,
  type DuckDBValue, type DuckDBValueConverter, type Json,
} from '@duckdb/node-api';

/**
 * A result's values as JSON: node-api's conversion (big integers, decimals, dates and times as text), with
 * DuckDB's own `infinity` and `-infinity` for the dates and times that have them, which node-api prints as a
 * date millions of years away for every type but TIMESTAMP.
 */
export const toJson: DuckDBValueConverter<Json> = (value, type, converter) => infinityText(value) ?? JsonDuckDBValueConverter(value, type, converter);

function infinityText(value: DuckDBValue): string | undefined {
  const sign = infinitySign(value);
  return sign === undefined ? undefined : sign > 0 ? 'infinity' : '-infinity';
}

function infinitySign(value: DuckDBValue): number | undefined {
  if (value instanceof DuckDBDateValue) return value.isFinite ? undefined : value.days;
  if (value instanceof DuckDBTimestampSecondsValue) return value.isFinite ? undefined : Number(value.seconds);
  if (value instanceof DuckDBTimestampMillisecondsValue) return value.isFinite ? undefined : Number(value.millis);
  if (value instanceof DuckDBTimestampNanosecondsValue) return value.isFinite ? undefined : Number(value.nanos);
  return undefined;
}

/** About how many characters `value` takes as JSON: exact for text, a guess for numbers and punctuation. */
export function jsonCharactersOf(value: Json): number {
  if (typeof value === 'string') return value.length + 2;
  if (value === null || typeof value !== 'object') return 8;
  let characters = 2;
  if (Array.isArray(value)) {
    for (const item of value) characters += jsonCharactersOf(item) + 1;
  } else {
    for (const [key, item] of Object.entries(value)) characters += key.length + 4 + jsonCharactersOf(item);
  }
  return characters;
}
