import { Binary, BSONRegExp, Code, DBRef, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp, UUID } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { restoreCursor, saveCursor } from './cursor-value.ts';
import { plainValue } from './plain-value.ts';

describe('plainValue', () => {
  it('turns BSON types into JSON the warehouse loads without loss', () => {
    const id = new ObjectId('65a1b2c3d4e5f60718293a4b');
    expect(plainValue({
      _id: id, at: new Date('2026-01-02T03:04:05.678Z'), price: Decimal128.fromString('1234567890.123456789'),
      big: Long.fromString('9007199254740993'), small: Long.fromNumber(42), ratio: new Double(0.5), count: new Int32(7),
      uuid: new UUID('0b8a7c1e-3f2d-4e5a-9b6c-7d8e9f0a1b2c'), blob: new Binary(Buffer.from('hi')), ts: new Timestamp({ t: 1767225600, i: 3 }),
      pattern: new BSONRegExp('^a', 'i'), code: new Code('x => x'), low: new MinKey(), high: new MaxKey(), ref: new DBRef('customers', id),
      nested: { list: [1, { deep: new Date(0) }], nothing: null, nan: Number.NaN },
    })).toEqual({
      _id: '65a1b2c3d4e5f60718293a4b', at: '2026-01-02T03:04:05.678Z', price: '1234567890.123456789', big: '9007199254740993', small: 42,
      ratio: 0.5, count: 7, uuid: '0b8a7c1e-3f2d-4e5a-9b6c-7d8e9f0a1b2c', blob: 'aGk=', ts: '2026-01-01T00:00:00.000Z', pattern: '/^a/i',
      code: 'x => x', low: 'MinKey', high: 'MaxKey', ref: { collection: 'customers', id: '65a1b2c3d4e5f60718293a4b', db: null },
      nested: { list: [1, { deep: '1970-01-01T00:00:00.000Z' }], nothing: null, nan: null },
    });
  });
});

describe('saveCursor and restoreCursor', () => {
  it('round-trip dates, ObjectIds, numbers and strings with their types', () => {
    const id = new ObjectId();
    for (const value of [new Date('2026-01-01T00:00:00Z'), id, 42, 'b-7']) {
      expect(restoreCursor(JSON.parse(JSON.stringify(saveCursor(value))))).toEqual(value);
    }
    expect(restoreCursor(saveCursor(id))).toBeInstanceOf(ObjectId);
  });

  it('refuses values that cannot order documents, and ignores a saved value it does not recognise', () => {
    expect(saveCursor({ a: 1 })).toBeUndefined();
    expect(saveCursor(true)).toBeUndefined();
    expect(restoreCursor('2026-01-01')).toBeUndefined();
    expect(restoreCursor({ type: 'objectId', value: 'not hex' })).toBeUndefined();
  });
});
