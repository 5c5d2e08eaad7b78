import {
  AckPolicy, DeliverPolicy, connect, type ConsumerConfig, type ConsumerInfo, type JetStreamManager, type JsMsg,
  type NatsConnection, type TlsOptions,
} from 'nats';
import { isIP } from 'node:net';
import { OutboundRefusedError, tlsServerName, type OutboundPolicy } from '../outbound/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { headerColumn, messageRecord } from './message-record.ts';
import type { StreamRead, StreamReadRequest } from './stream-reader.ts';
import { firstLineOf } from '../../errors.ts';

export type NatsCredentials = { user: string; pass: string } | { token: string } | Record<string, never>;

/** A JetStream stream as a source reads it. */
export interface JetStreamSource {
  readonly servers: readonly string[];
  readonly stream: string;
  readonly subjects: readonly string[] | undefined;
  readonly startFrom: 'earliest' | 'latest';
  readonly credentials: NatsCredentials;
  readonly tls: boolean;
  readonly outbound: OutboundPolicy;
}

const CONNECT_TIMEOUT_MS = 5_000;
const FETCH_BATCH = 1_000;
/** Deliveries stay unacknowledged from the read until the warehouse commit; a slow load must not see them redelivered meanwhile. */
const ACK_WAIT_NANOS = 60 * 60 * 1e9;
const ACKNOWLEDGED = '+ACK';

/**
 * Reads the messages a durable pull consumer has not delivered yet, up to the limit, without
 * acknowledging them: `acknowledge` does, once the data is committed (the consumer acknowledges all
 * up to the last message). A consumer left with unacknowledged deliveries by a failed sync is created
 * again at the committed position, so those messages come at once rather than after the ack wait.
 */
export async function readJetStream(source: JetStreamSource, request: StreamReadRequest): Promise<StreamRead> {
  const connection = await connectNats(source);
  try {
    const manager = await connection.jetstreamManager().catch((error: unknown) => {
      throw new SyncFailedError(`JetStream is not enabled on the NATS server at ${serversOf(source)} (${natsCause(error)})`);
    });
    await manager.streams.info(source.stream).catch((error: unknown) => {
      throw new SyncFailedError(isNotFound(error)
        ? `No JetStream stream ${source.stream} on the NATS server at ${serversOf(source)}`
        : `Could not read the stream ${source.stream} at ${serversOf(source)}: ${natsCause(error)}`);
    });
    const saved = request.saved(source.stream);
    const loadedThrough = await prepareConsumer(manager, source, request, typeof saved === 'number' ? saved : 0);
    const consumer = await connection.jetstream().consumers.get(source.stream, request.consumerName);
    let remaining = Math.min((await consumer.info()).num_pending, request.maxMessages);
    let last: JsMsg | undefined;
    let messages = 0;
    while (remaining > 0) {
      request.signal.throwIfAborted();
      const batch = await consumer.fetch({ max_messages: Math.min(remaining, FETCH_BATCH), expires: request.idleMs });
      let received = 0;
      for await (const message of batch) {
        received += 1;
        last = message;
        // Delivered again because the acknowledgement after an earlier commit never arrived: loaded already.
        if (message.seq <= loadedThrough) continue;
        await request.write(source.stream, jetStreamRecord(message));
        messages += 1;
      }
      if (received === 0) break;
      remaining -= received;
    }
    const position = last?.seq ?? loadedThrough;
    const reply = last === undefined ? undefined : ackSubjectOf(last);
    return {
      messages,
      positions: position > 0 ? new Map([[source.stream, position]]) : new Map(),
      acknowledge: async () => { if (reply !== undefined) await acknowledgeThrough(source, reply); },
    };
  } catch (error) {
    if (error instanceof SyncFailedError || request.signal.aborted) throw error;
    throw new SyncFailedError(`Reading the stream ${source.stream} from NATS at ${serversOf(source)} failed: ${natsCause(error)}`);
  } finally {
    await connection.close().catch(() => undefined);
  }
}

/** One JetStream message as one row: its payload's columns, then subject, stream sequence, time and headers. */
export function jetStreamRecord(message: Pick<JsMsg, 'data' | 'subject' | 'seq' | 'headers' | 'info'>): Record<string, unknown> {
  return messageRecord(message.data, {
    _subject: message.subject,
    _sequence: message.seq,
    _timestamp: new Date(message.info.timestampNanos / 1e6).toISOString(),
    _headers: message.headers === undefined ? null : headerColumn(message.headers),
  });
}

/**
 * Makes the durable consumer ready to deliver what follows the committed position, and returns the
 * stream sequence loaded through (messages up to it that come again are skipped).
 */
async function prepareConsumer(manager: JetStreamManager, source: JetStreamSource, request: StreamReadRequest, saved: number): Promise<number> {
  const existing = await manager.consumers.info(source.stream, request.consumerName).catch((error: unknown) => {
    if (isNotFound(error)) return undefined;
    throw error;
  });
  const filter = filterOf(source.subjects);
  if (existing !== undefined && !request.fullRefresh && existing.num_ack_pending === 0 && hasFilter(existing, filter)) return saved;
  // The consumer's ack floor is the broker's own record of what was loaded; the saved position may be ahead of it when an acknowledgement was lost.
  const committed = request.fullRefresh ? 0 : Math.max(saved, existing?.ack_floor.stream_seq ?? 0);
  if (existing !== undefined) await manager.consumers.delete(source.stream, request.consumerName);
  const start: Partial<ConsumerConfig> = committed > 0
    ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: committed + 1 }
    : { deliver_policy: source.startFrom === 'latest' ? DeliverPolicy.New : DeliverPolicy.All };
  await manager.consumers.add(source.stream, {
    durable_name: request.consumerName, ack_policy: AckPolicy.All, ack_wait: ACK_WAIT_NANOS, max_ack_pending: -1, ...filter, ...start,
  });
  if (existing !== undefined) request.log('INFO', `Recreated the consumer ${request.consumerName} at stream sequence ${String(committed + 1)}`);
  return request.fullRefresh ? 0 : committed;
}

function filterOf(subjects: readonly string[] | undefined): Partial<ConsumerConfig> {
  if (subjects === undefined) return {};
  const [only] = subjects;
  return subjects.length === 1 && only !== undefined ? { filter_subject: only } : { filter_subjects: [...subjects] };
}

function hasFilter(consumer: ConsumerInfo, filter: Partial<ConsumerConfig>): boolean {
  const current = consumer.config.filter_subjects ?? (consumer.config.filter_subject ? [consumer.config.filter_subject] : []);
  const wanted = filter.filter_subjects ?? (filter.filter_subject === undefined ? [] : [filter.filter_subject]);
  return current.length === wanted.length && current.every((subject) => wanted.includes(subject));
}

/**
 * The subject a delivery is acknowledged on, which the server sent as the message's reply subject:
 * the client's message object carries it though its interface does not declare it, and publishing
 * to it from a later connection acknowledges as `ack()` would.
 */
function ackSubjectOf(message: JsMsg): string {
  const reply = (message as JsMsg & { readonly reply?: unknown }).reply;
  if (typeof reply !== 'string' || !reply.startsWith('$JS.ACK.')) throw new Error(`The message at stream sequence ${String(message.seq)} came without an acknowledgement subject`);
  return reply;
}

/** With AckPolicy.All, acknowledging the last message acknowledges every one before it. */
async function acknowledgeThrough(source: JetStreamSource, reply: string): Promise<void> {
  const connection = await connectNats(source);
  try {
    connection.publish(reply, ACKNOWLEDGED);
    await connection.flush();
  } finally {
    await connection.close().catch(() => undefined);
  }
}

/**
 * Connects to the first server that answers. The client takes no `lookup`, so each is handed the address the
 * policy allowed for its host in place of the name, and TLS is verified against the name; it learns of no other
 * server, so it connects nowhere else.
 */
async function connectNats(source: JetStreamSource): Promise<NatsConnection> {
  let failure: unknown;
  for (const server of source.servers) {
    const url = new URL(server.includes('://') ? server : `nats://${server}`);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    // The client hands these to tls.connect; its type leaves servername out.
    const tls: TlsOptions & { servername?: string } = tlsServerName(host);
    try {
      const address = await source.outbound.resolveReachable(host);
      url.hostname = isIP(address) === 6 ? `[${address}]` : address;
      return await connect({
        servers: [url.href], name: 'quarry', timeout: CONNECT_TIMEOUT_MS, reconnect: false, ignoreClusterUpdates: true, ...source.credentials,
        // Without tls, none at all: the client's own upgrade would verify the certificate against the address, not the name.
        tls: source.tls ? tls : null,
      });
    } catch (error) {
      if (error instanceof OutboundRefusedError) throw error;
      failure = error;
    }
  }
  const cause = !source.tls && (failure as { code?: unknown } | undefined)?.code === 'TLS' ? 'the server requires TLS (set tls: true)' : natsCause(failure);
  throw new SyncFailedError(`Could not connect to NATS at ${serversOf(source)}: ${cause}`);
}

/** The servers as host:port, never with credentials a URL might carry. */
function serversOf(source: JetStreamSource): string {
  return source.servers.map((server) => {
    try {
      return new URL(server.includes('://') ? server : `nats://${server}`).host;
    } catch {
      return server;
    }
  }).join(', ');
}

function isNotFound(error: unknown): boolean {
  return (error as { api_error?: { code?: number } }).api_error?.code === 404;
}

function natsCause(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'CONNECTION_REFUSED') return 'connection refused';
  if (code === 'AUTHORIZATION_VIOLATION') return 'the server refused the credentials (authorization violation)';
  if (code === 'TIMEOUT' || code === 'CONNECTION_TIMEOUT') return `no answer within ${String(CONNECT_TIMEOUT_MS / 1000)} s`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name does not resolve';
  return firstLineOf(error);
}
