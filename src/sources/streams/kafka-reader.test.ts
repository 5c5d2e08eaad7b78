import { describe, expect, it } from 'vitest';
import { kafkaCause, kafkaRecord, startOffset } from './kafka-reader.ts';

// No Kafka broker can be installed on the machines this project runs on: these cover the mapping and position logic only.
describe('kafkaRecord', () => {
  it('maps a JSON message with key, partition, offset, time and headers', () => {
    const record = kafkaRecord(2, {
      key: Buffer.from('order-1'), value: Buffer.from('{"id":1,"lines":[{"sku":"A"}]}'), offset: '41', timestamp: '1767225600000',
      headers: { 'trace-id': Buffer.from('t-1'), tag: ['a', Buffer.from('b')], absent: undefined },
    });
    expect(record).toEqual({
      id: 1, lines: [{ sku: 'A' }], _key: 'order-1', _partition: 2, _offset: 41, _timestamp: '2026-01-01T00:00:00.000Z',
      _headers: { 'trace-id': 't-1', tag: 'a,b' },
    });
  });

  it('keeps a binary key as base64, a text payload in value, and no headers as null', () => {
    expect(kafkaRecord(0, { key: Buffer.from([0xff, 0x01]), value: Buffer.from('hello'), offset: '0', timestamp: '0', headers: {} })).toEqual({
      value: 'hello', _key: '/wE=', _partition: 0, _offset: 0, _timestamp: '1970-01-01T00:00:00.000Z', _headers: null,
    });
  });

  it('keeps a tombstone (no value, no key) as a row with null value', () => {
    expect(kafkaRecord(1, { key: null, value: null, offset: '5', timestamp: '1000', headers: {} })).toMatchObject({ value: null, _key: null, _offset: 5 });
  });
});

describe('startOffset', () => {
  const partition = { saved: undefined, committed: undefined, low: 10, high: 50, startFrom: 'earliest', fullRefresh: false } as const;

  it('starts from start_from when nothing was loaded', () => {
    expect(startOffset(partition)).toBe(10);
    expect(startOffset({ ...partition, startFrom: 'latest' })).toBe(50);
  });

  it('starts past the further of the saved position and the group commit', () => {
    expect(startOffset({ ...partition, saved: 30, committed: 20 })).toBe(30);
    expect(startOffset({ ...partition, saved: 20, committed: 30 })).toBe(30);
  });

  it('starts at the oldest kept message when retention deleted the position, and never past the end', () => {
    expect(startOffset({ ...partition, committed: 3 })).toBe(10);
    expect(startOffset({ ...partition, saved: 80 })).toBe(50);
  });

  it('starts over from start_from on a full refresh', () => {
    expect(startOffset({ ...partition, saved: 30, committed: 30, fullRefresh: true })).toBe(10);
  });
});

describe('kafkaCause', () => {
  it('names the innermost cause of a retried failure', () => {
    const refused = Object.assign(new Error('Connection error: connect ECONNREFUSED 127.0.0.1:9092'), { name: 'KafkaJSConnectionError' });
    const retried = Object.assign(new Error('Connection error'), { name: 'KafkaJSNumberOfRetriesExceeded', originalError: refused });
    expect(kafkaCause(retried)).toBe('connection refused');
    const sasl = Object.assign(new Error('SASL PLAIN authentication failed'), { name: 'KafkaJSSASLAuthenticationError' });
    expect(kafkaCause(Object.assign(new Error('failed'), { cause: sasl }))).toBe('the broker refused the credentials (SASL authentication failed)');
  });
});
