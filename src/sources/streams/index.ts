export { readJetStream, jetStreamRecord, type JetStreamSource, type NatsCredentials } from './jetstream-reader.ts';
export { readKafka, kafkaRecord, startOffset, type KafkaSource } from './kafka-reader.ts';
export type { StreamRead, StreamReadRequest } from './stream-reader.ts';
