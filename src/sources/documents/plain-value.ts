import {
  Binary, BSONRegExp, BSONSymbol, Code, DBRef, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp,
} from 'mongodb';

const UUID_SUBTYPE = 4;

/**
 * A BSON value as plain JSON the warehouse loads faithfully: ObjectId as its hex string, dates as
 * ISO timestamps, Decimal128 and 64-bit integers past 2^53 as text (never rounded), binary as base64
 * (UUIDs in their usual form), embedded documents and arrays as objects and lists (STRUCT and LIST).
 */
export function plainValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(plainValue);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof ObjectId) return value.toHexString();
  if (value instanceof Decimal128) return value.toString();
  // A Timestamp is a Long underneath: it must be told apart first.
  if (value instanceof Timestamp) return new Date(value.t * 1000).toISOString();
  if (value instanceof Long) return Number.isSafeInteger(value.toNumber()) ? value.toNumber() : value.toString();
  if (value instanceof Double || value instanceof Int32) return plainValue(value.valueOf());
  if (value instanceof Binary) return value.sub_type === UUID_SUBTYPE ? value.toUUID().toHexString() : value.toString('base64');
  if (value instanceof BSONRegExp) return `/${value.pattern}/${value.options}`;
  if (value instanceof RegExp) return String(value);
  if (value instanceof Code) return value.code;
  if (value instanceof BSONSymbol) return value.valueOf();
  if (value instanceof MinKey) return 'MinKey';
  if (value instanceof MaxKey) return 'MaxKey';
  if (value instanceof DBRef) return { collection: value.collection, id: plainValue(value.oid), db: value.db ?? null };
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, plainValue(inner)]));
}
