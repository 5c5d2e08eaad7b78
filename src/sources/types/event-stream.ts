import { z } from 'zod';
import type { Connector, ExtractContext, RecordSink, TableWriter } from '../connector.ts';
import { requireEnv } from '../rest/index.ts';
import { readJetStream, readKafka, type NatsCredentials, type StreamRead, type StreamReadRequest } from '../streams/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { EnvVarName, NonEmptyString, StringList, genericConfig, defineSourceType, sectionOf } from '../type-definition/index.ts';
import { snakeCase } from './snake-case.ts';

export const STREAM_PROTOCOLS = ['kafka', 'nats'] as const;
export type StreamProtocol = (typeof STREAM_PROTOCOLS)[number];

const PROTOCOL_OF_SCHEME: Readonly<Record<string, StreamProtocol>> = { 'nats:': 'nats', 'tls:': 'nats', 'kafka:': 'kafka' };

/** Keys that only one protocol reads: set for the other, they would be silently ignored. */
const KEYS_OF_PROTOCOL = {
  kafka: ['topics', 'group_id', 'sasl_mechanism'],
  nats: ['stream', 'subjects', 'durable_name', 'token_env'],
} as const satisfies Record<StreamProtocol, readonly string[]>;

/** A JetStream consumer name becomes part of API subjects: no dots, wildcards or spaces. */
const ConsumerName = z.string().regex(/^[A-Za-z0-9_-]+$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a consumer name: use letters, digits, - and _`,
});

function schemeOf(server: string): string | undefined {
  return /^([a-z][a-z0-9+.-]*:)\/\//i.exec(server)?.[1]?.toLowerCase();
}

/** The protocol named, or the one every server URL's scheme agrees on; undefined when neither says. */
function inferProtocol(config: { protocol?: StreamProtocol | undefined; servers: readonly string[] }): StreamProtocol | undefined {
  if (config.protocol !== undefined) return config.protocol;
  const protocols = new Set(config.servers.map((server) => PROTOCOL_OF_SCHEME[schemeOf(server) ?? '']));
  const [only] = protocols;
  return protocols.size === 1 ? only : undefined;
}

export const EventStreamConfig = genericConfig({
  /** `nats://host:4222`, `tls://host:4222`, `kafka://host:9092`, or `host:port` with `protocol` set. */
  servers: StringList,
  protocol: z.enum(STREAM_PROTOCOLS).optional(),
  /** Kafka: the topics read, one table each. */
  topics: StringList.optional(),
  /** Kafka: the consumer group whose committed offsets mark what was loaded; `quarry_<source name>` when absent. */
  group_id: NonEmptyString.optional(),
  sasl_mechanism: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']).optional(),
  /** NATS: the JetStream stream read, one table. */
  stream: NonEmptyString.optional(),
  /** NATS: only these subjects of the stream (wildcards allowed; several need nats-server 2.10 or later). */
  subjects: StringList.optional(),
  /** NATS: the durable consumer whose acknowledgements mark what was loaded; `quarry_<source name>` when absent. */
  durable_name: ConsumerName.optional(),
  username_env: EnvVarName.optional(),
  password_env: EnvVarName.optional(),
  token_env: EnvVarName.optional(),
  tls: z.boolean().default(false),
  max_messages: z.int().positive().default(100_000),
  start_from: z.enum(['earliest', 'latest']).default('earliest'),
  idle_timeout_seconds: z.number().min(1).max(300).default(2),
}).transform((config, context) => {
  const protocol = inferProtocol(config);
  if (protocol === undefined) {
    context.issues.push({
      code: 'custom', path: ['protocol'], input: config.protocol,
      message: 'required: kafka or nats (or write every server as nats://host:port or kafka://host:port)',
    });
    return z.NEVER;
  }
  const other = protocol === 'kafka' ? 'nats' : 'kafka';
  for (const key of KEYS_OF_PROTOCOL[other]) {
    if (config[key] !== undefined) {
      context.issues.push({ code: 'custom', path: [key], input: config[key], message: `is for ${other}; this source reads ${protocol}` });
    }
  }
  if (protocol === 'kafka' && config.topics === undefined) {
    context.issues.push({ code: 'custom', path: ['topics'], input: undefined, message: 'required for kafka: the topics to read' });
  }
  if (protocol === 'nats' && config.stream === undefined) {
    context.issues.push({ code: 'custom', path: ['stream'], input: undefined, message: 'required for nats: the JetStream stream to read' });
  }
  if ((config.username_env === undefined) !== (config.password_env === undefined)) {
    const [missing, present] = config.username_env === undefined ? ['username_env', 'password_env'] : ['password_env', 'username_env'];
    context.issues.push({ code: 'custom', path: [missing], input: undefined, message: `required when ${present} is set` });
  }
  return { ...config, protocol };
});
export type EventStreamConfig = z.output<typeof EventStreamConfig>;

const WRITE_BATCH = 1_000;

/**
 * `event_stream`: Apache Kafka topics (one table each) or a NATS JetStream stream (one table), read
 * as a batch: what arrived since the committed position, then stop. Rows are appended; the position
 * is committed on the broker (Kafka group offsets, JetStream acknowledgements) only after the
 * warehouse commit, so a failed load leaves the messages to the next sync.
 */
const eventStreamConnector: Connector = {
  async extract(context, sink) {
    const config = sectionOf(context.source) as EventStreamConfig;
    const tables = new BatchedTables(sink, tableNamesOf(config.protocol === 'kafka' ? config.topics ?? [] : [config.stream ?? '']));
    const request: StreamReadRequest = {
      consumerName: (config.protocol === 'kafka' ? config.group_id : config.durable_name) ?? `quarry_${context.source.name}`,
      fullRefresh: context.fullRefresh,
      saved: (key) => context.state.get(key),
      maxMessages: config.max_messages,
      idleMs: config.idle_timeout_seconds * 1000,
      signal: context.signal,
      write: (origin, record) => tables.write(origin, record),
      log: context.log,
    };
    const read = await readStream(config, context, request);
    await tables.flush();
    for (const [key, position] of read.positions) context.state.set(key, position);
    context.onCommitted(read.acknowledge);
    const limited = read.messages >= config.max_messages ? ` (the max_messages limit; the rest follow on the next sync)` : '';
    context.log('INFO', `Read ${String(read.messages)} messages${limited}`);
  },
};

function readStream(config: EventStreamConfig, context: ExtractContext, request: StreamReadRequest): Promise<StreamRead> {
  const username = config.username_env === undefined ? undefined : requireEnv(context.env, config.username_env, 'the user name for the broker');
  const password = config.password_env === undefined ? undefined : requireEnv(context.env, config.password_env, 'the password for the broker');
  if (config.protocol === 'kafka') {
    return readKafka({
      brokers: config.servers.map((server) => server.replace(/^kafka:\/\//i, '')),
      topics: config.topics ?? [],
      startFrom: config.start_from,
      ssl: config.tls,
      sasl: username === undefined || password === undefined ? undefined : { mechanism: config.sasl_mechanism ?? 'plain', username, password },
      outbound: context.outbound,
    }, request);
  }
  const token = config.token_env === undefined ? undefined : requireEnv(context.env, config.token_env, 'the token for the NATS server');
  const credentials: NatsCredentials = username !== undefined && password !== undefined ? { user: username, pass: password } : token === undefined ? {} : { token };
  return readJetStream({
    servers: config.servers, stream: config.stream ?? '', subjects: config.subjects, startFrom: config.start_from, credentials,
    tls: config.tls || config.servers.some((server) => server.toLowerCase().startsWith('tls://')),
    outbound: context.outbound,
  }, request);
}

/** Topic or stream → table; two topics whose names differ only in punctuation would share a table, so they are refused. */
function tableNamesOf(origins: readonly string[]): Map<string, string> {
  const tables = new Map<string, string>();
  for (const origin of origins) {
    const table = snakeCase(origin);
    const twin = [...tables].find(([, name]) => name === table)?.[0];
    if (twin !== undefined) throw new SyncFailedError(`The topics ${twin} and ${origin} would both load into the table ${table}`);
    tables.set(origin, table);
  }
  return tables;
}

/** Appends records table by table in batches, so a long stream is staged without holding it in memory. */
class BatchedTables {
  readonly #pending = new Map<string, { writer: TableWriter; records: Record<string, unknown>[] }>();

  /** Every table is declared even when no message comes, so a full refresh empties it. */
  constructor(sink: RecordSink, tables: ReadonlyMap<string, string>) {
    for (const [origin, name] of tables) this.#pending.set(origin, { writer: sink.table({ name, disposition: 'append' }), records: [] });
  }

  async write(origin: string, record: Record<string, unknown>): Promise<void> {
    const entry = this.#pending.get(origin);
    if (entry === undefined) throw new Error(`A message from ${origin}, which this source does not read`);
    entry.records.push(record);
    if (entry.records.length >= WRITE_BATCH) await this.#flushTable(entry);
  }

  async flush(): Promise<void> {
    for (const entry of this.#pending.values()) await this.#flushTable(entry);
  }

  async #flushTable(entry: { writer: TableWriter; records: Record<string, unknown>[] }): Promise<void> {
    const records = entry.records.splice(0);
    await entry.writer.write(records);
  }
}

export const eventStreamType = defineSourceType({
  key: 'event_stream', category: 'Streaming', authType: 'None', wizard: true, incremental: true,
  section: 'generic', schema: EventStreamConfig,
  connector: eventStreamConnector,
});
