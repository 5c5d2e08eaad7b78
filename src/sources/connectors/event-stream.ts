import type { SourceConfigOf } from '../../config/index.ts';
import type { Connector, ExtractContext, RecordSink, TableWriter } from '../connector.ts';
import { requireEnv } from '../rest/index.ts';
import { readJetStream, readKafka, type NatsCredentials, type StreamRead, type StreamReadRequest } from '../streams/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { snakeCase } from './snake-case.ts';

type EventStreamConfig = SourceConfigOf<'event_stream'>['generic_config'];

const WRITE_BATCH = 1_000;

/**
 * `event_stream`: Apache Kafka topics (one table each) or a NATS JetStream stream (one table), read
 * as a batch: what arrived since the committed position, then stop. Rows are appended; the position
 * is committed on the broker (Kafka group offsets, JetStream acknowledgements) only after the
 * warehouse commit, so a failed load leaves the messages to the next sync.
 */
export const eventStreamConnector: Connector = {
  async extract(context, sink) {
    const config = (context.source as SourceConfigOf<'event_stream'>).generic_config;
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
    }, request);
  }
  const token = config.token_env === undefined ? undefined : requireEnv(context.env, config.token_env, 'the token for the NATS server');
  const credentials: NatsCredentials = username !== undefined && password !== undefined ? { user: username, pass: password } : token === undefined ? {} : { token };
  return readJetStream({
    servers: config.servers, stream: config.stream ?? '', subjects: config.subjects, startFrom: config.start_from, credentials,
    tls: config.tls || config.servers.some((server) => server.toLowerCase().startsWith('tls://')),
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
