import { ObjectId } from 'mongodb';

/** A cursor field's value as saved in the source state: JSON cannot tell a date or an ObjectId from a string. */
export type SavedCursor =
  | { readonly type: 'date'; readonly value: string }
  | { readonly type: 'objectId'; readonly value: string }
  | { readonly type: 'number'; readonly value: number }
  | { readonly type: 'string'; readonly value: string };

/** The saved form of a cursor value, or undefined for a type that cannot order documents (an object, a list, a boolean). */
export function saveCursor(value: unknown): SavedCursor | undefined {
  if (value instanceof Date) return { type: 'date', value: value.toISOString() };
  if (value instanceof ObjectId) return { type: 'objectId', value: value.toHexString() };
  if (typeof value === 'number' && Number.isFinite(value)) return { type: 'number', value };
  if (typeof value === 'string') return { type: 'string', value };
  return undefined;
}

/** The value to query past, typed as the database stores it; undefined when nothing usable was saved. */
export function restoreCursor(saved: unknown): Date | ObjectId | number | string | undefined {
  if (saved === null || typeof saved !== 'object') return undefined;
  const { type, value } = saved as { type?: unknown; value?: unknown };
  if (type === 'date' && typeof value === 'string') return new Date(value);
  if (type === 'objectId' && typeof value === 'string' && ObjectId.isValid(value)) return new ObjectId(value);
  if (type === 'number' && typeof value === 'number') return value;
  if (type === 'string' && typeof value === 'string') return value;
  return undefined;
}
