import { z } from 'zod';
import { EnvVarName, NonEmptyString, StringList } from './field-types.ts';
import { genericConfig } from './generic-config.ts';
import { defineSourceType } from '../source-type-definition.ts';

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

export const eventStreamType = defineSourceType({
  key: 'event_stream', category: 'Streaming', authType: 'None', wizard: true, incremental: true,
  section: 'generic', schema: EventStreamConfig,
});
