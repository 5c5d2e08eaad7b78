import type { Admin, IHeaders, Kafka, KafkaMessage, SASLOptions } from 'kafkajs';
import { hostOfServer, type OutboundPolicy } from '../outbound/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { headerColumn, messageRecord, utf8Text } from './message-record.ts';
import type { StreamRead, StreamReadRequest } from './stream-reader.ts';
import { firstLineOf } from '../../errors.ts';

/** Kafka topics as a source reads them. */
export interface KafkaSource {
  readonly brokers: readonly string[];
  readonly topics: readonly string[];
  readonly startFrom: 'earliest' | 'latest';
  readonly sasl: SASLOptions | undefined;
  readonly ssl: boolean;
  readonly outbound: OutboundPolicy;
}

/** Where one partition's read starts and the offset it stops before (the end of the partition when the sync began). */
interface PartitionRead {
  readonly topic: string;
  readonly partition: number;
  next: number;
  readonly end: number;
}

/** A topic's saved positions: partition → the next offset to load. */
type TopicPosition = Readonly<Record<string, number>>;

const CONNECT_TIMEOUT_MS = 5_000;
/** What kafkajs's own socket factory sets. */
const KEEP_ALIVE_DELAY_MS = 60_000;
/** The broker delays a new group's first assignment (group.initial.rebalance.delay.ms, 3 s by default). */
const JOIN_TIMEOUT_MS = 30_000;

/**
 * Reads each partition of the topics from the committed position to the end it had when the sync
 * began (or until the limit, or until nothing came for the idle time), with no offset committed:
 * `acknowledge` commits them for the consumer group once the data is in the warehouse.
 */
export async function readKafka(source: KafkaSource, request: StreamReadRequest): Promise<StreamRead> {
  // Loaded by the sync that reads Kafka, not by every process that loads the source types.
  const { Kafka, logLevel } = await import('kafkajs');
  const kafka = new Kafka({
    clientId: 'quarry', brokers: [...source.brokers], ssl: source.ssl, sasl: source.sasl,
    connectionTimeout: CONNECT_TIMEOUT_MS, retry: { retries: 2 }, logLevel: logLevel.NOTHING,
    // Every connection, to the brokers the cluster's metadata names too, reaches only an address the policy allows as it connects.
    socketFactory: ({ host, port, onConnect }) => source.outbound.connect({ host, port, tls: source.ssl }, onConnect).setKeepAlive(true, KEEP_ALIVE_DELAY_MS),
  });
  const reads = await withAdmin(kafka, source, (admin) => planReads(admin, source, request));
  const messages = await consume(kafka, source, request, reads);
  const positions = new Map<string, TopicPosition>();
  for (const read of reads) positions.set(read.topic, { ...positions.get(read.topic), [String(read.partition)]: read.next });
  return {
    messages,
    positions,
    acknowledge: () => withAdmin(kafka, source, async (admin) => {
      for (const [topic, position] of positions) {
        const partitions = Object.entries(position).map(([partition, offset]) => ({ partition: Number(partition), offset: String(offset) }));
        await admin.setOffsets({ groupId: request.consumerName, topic, partitions });
      }
    }),
  };
}

/** The offset a partition's read starts at: past what was loaded (by Quarry's saved position or the group's commit), else `start_from`. */
export function startOffset(partition: {
  saved: number | undefined; committed: number | undefined; low: number; high: number; startFrom: 'earliest' | 'latest'; fullRefresh: boolean;
}): number {
  const loaded = partition.fullRefresh ? undefined : Math.max(partition.saved ?? -1, partition.committed ?? -1);
  // Retention may have deleted messages past the position: the oldest kept one is where reading can start.
  if (loaded !== undefined && loaded >= 0) return Math.min(Math.max(loaded, partition.low), partition.high);
  return partition.startFrom === 'earliest' ? partition.low : partition.high;
}

/** One Kafka message as one row: its payload's columns, then key, partition, offset, time and headers. */
export function kafkaRecord(partition: number, message: Pick<KafkaMessage, 'key' | 'value' | 'offset' | 'timestamp' | 'headers'>): Record<string, unknown> {
  return messageRecord(message.value, {
    _key: message.key === null ? null : utf8Text(message.key) ?? message.key.toString('base64'),
    _partition: partition,
    _offset: Number(message.offset),
    _timestamp: new Date(Number(message.timestamp)).toISOString(),
    _headers: headerColumn(Object.entries(message.headers ?? {}).flatMap(([name, value]) => (value === undefined ? [] : [[name, headerValues(value)] as const]))),
  });
}

function headerValues(value: NonNullable<IHeaders[string]>): string[] {
  return (Array.isArray(value) ? value : [value]).map((item) => (typeof item === 'string' ? item : item.toString('utf8')));
}

async function planReads(admin: Admin, source: KafkaSource, request: StreamReadRequest): Promise<PartitionRead[]> {
  const existing = new Set(await admin.listTopics());
  const missing = source.topics.filter((topic) => !existing.has(topic));
  if (missing.length > 0) throw new SyncFailedError(`No topic ${missing.join(', ')} on the Kafka cluster at ${source.brokers.join(', ')}`);
  const committed = await admin.fetchOffsets({ groupId: request.consumerName, topics: [...source.topics] });
  const reads: PartitionRead[] = [];
  for (const topic of source.topics) {
    const saved = request.saved(topic) as TopicPosition | undefined;
    const commits = committed.find((entry) => entry.topic === topic)?.partitions ?? [];
    for (const offsets of await admin.fetchTopicOffsets(topic)) {
      const commit = Number(commits.find((entry) => entry.partition === offsets.partition)?.offset ?? -1);
      const next = startOffset({
        saved: saved?.[String(offsets.partition)], committed: commit >= 0 ? commit : undefined,
        low: Number(offsets.low), high: Number(offsets.high), startFrom: source.startFrom, fullRefresh: request.fullRefresh,
      });
      reads.push({ topic, partition: offsets.partition, next, end: Number(offsets.high) });
    }
  }
  return reads;
}

/** Runs a consumer of the group until every partition reached its end, the limit was read, or nothing came for the idle time. */
async function consume(kafka: Kafka, source: KafkaSource, request: StreamReadRequest, reads: readonly PartitionRead[]): Promise<number> {
  const unfinished = new Map(reads.filter((read) => read.next < read.end).map((read) => [`${read.topic}/${String(read.partition)}`, read]));
  if (unfinished.size === 0) return 0;
  const consumer = kafka.consumer({ groupId: request.consumerName, maxWaitTimeInMs: Math.min(request.idleMs, 1_000) });
  let messages = 0;
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [...source.topics] });
    await new Promise<void>((resolve, reject) => {
      let timer = setTimeout(() => { reject(new SyncFailedError(`The consumer group ${request.consumerName} got no partitions within ${String(JOIN_TIMEOUT_MS / 1000)} s (does another consumer hold them?)`)); }, JOIN_TIMEOUT_MS);
      const idle = (): void => { clearTimeout(timer); timer = setTimeout(resolve, request.idleMs); };
      const finish = (): void => { clearTimeout(timer); resolve(); };
      consumer.on(consumer.events.GROUP_JOIN, idle);
      request.signal.addEventListener('abort', () => { clearTimeout(timer); reject(request.signal.reason as Error); }, { once: true });
      consumer.run({
        autoCommit: false,
        eachBatch: async (payload) => {
          const { batch } = payload;
          idle();
          const read = unfinished.get(`${batch.topic}/${String(batch.partition)}`);
          if (read === undefined) return;
          for (const message of batch.messages) {
            const offset = Number(message.offset);
            if (offset < read.next) continue; // fetched before the seek took effect
            if (offset >= read.end || messages >= request.maxMessages) break;
            await request.write(read.topic, kafkaRecord(batch.partition, message));
            read.next = offset + 1;
            messages += 1;
          }
          if (read.next >= read.end) {
            unfinished.delete(`${read.topic}/${String(read.partition)}`);
            payload.pause();
          }
          if (unfinished.size === 0 || messages >= request.maxMessages) finish();
        },
      }).then(() => {
        for (const read of unfinished.values()) consumer.seek({ topic: read.topic, partition: read.partition, offset: String(read.next) });
      }, reject);
    });
    return messages;
  } catch (error) {
    if (error instanceof SyncFailedError || request.signal.aborted) throw error;
    throw new SyncFailedError(`Reading ${source.topics.join(', ')} from Kafka at ${source.brokers.join(', ')} failed: ${kafkaCause(error)}`);
  } finally {
    // Leaving the group lets `acknowledge` commit its offsets (a group with members refuses them).
    await consumer.disconnect().catch(() => undefined);
  }
}

async function withAdmin<T>(kafka: Kafka, source: KafkaSource, work: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = kafka.admin();
  try {
    // The brokers named in the source are checked first, so a refusal reads as one rather than as a failed connection retried.
    await Promise.all(source.brokers.map((broker) => source.outbound.resolveReachable(hostOfServer(broker)))).then(() => admin.connect()).catch((error: unknown) => {
      if (error instanceof SyncFailedError) throw error;
      throw new SyncFailedError(`Could not connect to Kafka at ${source.brokers.join(', ')}: ${kafkaCause(error)}`);
    });
    return await work(admin);
  } catch (error) {
    if (error instanceof SyncFailedError) throw error;
    throw new SyncFailedError(`Kafka at ${source.brokers.join(', ')} failed: ${kafkaCause(error)}`);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** kafkajs wraps the cause of a retried failure; the innermost one says what happened. */
export function kafkaCause(error: unknown): string {
  let inner = error as { name?: string; message?: string; cause?: unknown; originalError?: unknown } | undefined;
  while (inner?.originalError !== undefined || inner?.cause !== undefined) {
    inner = (inner.originalError ?? inner.cause) as typeof inner;
  }
  const message = inner?.message ?? String(error);
  if (inner?.name === 'KafkaJSSASLAuthenticationError') return 'the broker refused the credentials (SASL authentication failed)';
  if (message.includes('ECONNREFUSED')) return 'connection refused';
  if (message.includes('ENOTFOUND') || message.includes('EAI_AGAIN')) return 'the host name does not resolve';
  return firstLineOf(message);
}
