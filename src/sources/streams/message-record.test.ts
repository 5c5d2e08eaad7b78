import { describe, expect, it } from 'vitest';
import { headerColumn, messageRecord } from './message-record.ts';

const metadata = { _subject: 'orders.created', _sequence: 7 } as const;
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('messageRecord', () => {
  it('spreads a JSON object payload into columns, nested values kept whole, metadata winning a name clash', () => {
    expect(messageRecord(bytes('{"id":1,"customer":{"name":"Ada"},"tags":["a"],"_sequence":"mine"}'), metadata))
      .toEqual({ id: 1, customer: { name: 'Ada' }, tags: ['a'], _subject: 'orders.created', _sequence: 7 });
  });

  it('keeps JSON that is not an object, text and an empty payload as text in value', () => {
    expect(messageRecord(bytes('[1,2]'), metadata)).toEqual({ ...metadata, value: '[1,2]' });
    expect(messageRecord(bytes('42'), metadata)).toEqual({ ...metadata, value: '42' });
    expect(messageRecord(bytes('not json {'), metadata)).toEqual({ ...metadata, value: 'not json {' });
    expect(messageRecord(bytes(''), metadata)).toEqual({ ...metadata, value: '' });
  });

  it('keeps a payload that is not UTF-8 as base64 and a missing one (a tombstone) as null', () => {
    expect(messageRecord(new Uint8Array([0xff, 0x00, 0xfe]), metadata)).toEqual({ ...metadata, value_base64: '/wD+' });
    expect(messageRecord(null, metadata)).toEqual({ ...metadata, value: null });
  });
});

describe('headerColumn', () => {
  it('joins repeated values and gives null when there are no headers', () => {
    expect(headerColumn([['trace-id', ['t-1']], ['tag', ['a', 'b']]])).toEqual({ 'trace-id': 't-1', tag: 'a,b' });
    expect(headerColumn([])).toBeNull();
  });
});
