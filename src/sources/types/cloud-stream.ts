import { z } from 'zod';
import type { Connector, ExtractContext } from '../connector.ts';
import { HttpClient, valueAt, type AuthStrategy, type HttpRequest } from '../rest/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { EnvVarName, genericConfig, defineSourceType, sectionOf } from '../type-definition/index.ts';
import { googleAuth, readGoogleCredentials } from './google-credentials.ts';

/** Pub/Sub resource names: letters first, then letters, digits and `-_.~+%`, 3 to 255 characters. */
const ResourceName = z.string().regex(/^[A-Za-z][A-Za-z0-9\-_.~+%]{2,254}$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a Pub/Sub name: start with a letter, then letters, digits or -_.~+%`,
});

const ProjectId = z.string().regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a Google Cloud project id`,
});

export const CloudStreamConfig = genericConfig({
  /** Defaults to the service account key's project. */
  project_id: ProjectId.optional(),
  subscription: ResourceName.optional(),
  credentials_env: EnvVarName.default('CLOUD_STREAM_CREDENTIALS'),
  /** Messages asked for per pull request (Pub/Sub allows up to 1,000). */
  batch_size: z.int().min(1).max(1000).default(1000),
  /** Stops a sync after this many messages, so a busy topic cannot keep one sync running forever. */
  max_messages: z.int().min(1).default(100_000),
  /** The table messages land in. */
  table_name: z.string().regex(/^[a-z][a-z0-9_]*$/, { error: 'use lowercase letters, digits and underscores' }).default('messages'),
}).refine((config) => config.subscription !== undefined, { path: ['subscription'], error: 'required: the subscription to pull from' });
export type CloudStreamConfig = z.output<typeof CloudStreamConfig>;

const PUBSUB_API = 'https://pubsub.googleapis.com';
const SCOPE = 'https://www.googleapis.com/auth/pubsub';
/** Pub/Sub takes at most this many ack ids per acknowledge request. */
const ACK_BATCH = 1000;

interface ReceivedMessage {
  ackId: string;
  deliveryAttempt?: number;
  message: { data?: string; attributes?: Record<string, string>; messageId: string; publishTime: string; orderingKey?: string };
}

/** A message as a row: a JSON object's fields as columns (other payloads as `data` text), then the message's own fields. */
export function messageRecord(received: ReceivedMessage): Record<string, unknown> {
  const { message } = received;
  const text = Buffer.from(message.data ?? '', 'base64').toString('utf8');
  let payload: Record<string, unknown> = { data: text };
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) payload = parsed as Record<string, unknown>;
  } catch {
    // not JSON: kept as text
  }
  return {
    ...payload,
    message_id: message.messageId,
    publish_time: message.publishTime,
    attributes: message.attributes ?? null,
    ordering_key: message.orderingKey ?? null,
  };
}

class Subscription {
  readonly #root: string;
  readonly #auth: AuthStrategy;
  readonly #http: HttpClient;

  constructor(root: string, auth: AuthStrategy, http: HttpClient) {
    this.#root = root;
    this.#auth = auth;
    this.#http = http;
  }

  async pull(maxMessages: number): Promise<ReceivedMessage[]> {
    const body = await this.#post('pull', { maxMessages });
    return (valueAt(body, 'receivedMessages') ?? []) as ReceivedMessage[];
  }

  async acknowledge(ackIds: readonly string[]): Promise<void> {
    for (let start = 0; start < ackIds.length; start += ACK_BATCH) {
      await this.#post('acknowledge', { ackIds: ackIds.slice(start, start + ACK_BATCH) });
    }
  }

  async #post(method: string, body: unknown): Promise<unknown> {
    const request: HttpRequest = { url: new URL(`${this.#root}:${method}`), method: 'POST', headers: {}, body };
    await this.#auth.apply(request);
    return (await this.#http.request(request)).body;
  }
}

function openSubscription(config: CloudStreamConfig, context: ExtractContext): Subscription {
  const http = new HttpClient({ signal: context.signal, outbound: context.outbound, onRetry: (message) => { context.log('WARNING', message); } });
  const credentials = readGoogleCredentials(context.env, config.credentials_env);
  const project = config.project_id ?? (credentials.type === 'service_account' ? credentials.project_id : undefined);
  if (project === undefined) throw new SyncFailedError(`Set project_id: the credentials in ${config.credentials_env} name no project`);
  const root = `${(config.base_url ?? PUBSUB_API).replace(/\/+$/, '')}/v1/projects/${project}/subscriptions/${config.subscription ?? ''}`;
  return new Subscription(root, googleAuth({ env: context.env, credentialsEnv: config.credentials_env, scope: SCOPE, http }), http);
}

/**
 * `cloud_stream`: Google Cloud Pub/Sub, pulled until the subscription is empty. Messages are
 * acknowledged only once the warehouse has committed them: until then Pub/Sub redelivers them, so a
 * failed sync loses nothing, and a redelivered message merges on its id.
 */
const cloudStreamConnector: Connector = {
  async extract(context, sink) {
    const config = sectionOf(context.source) as CloudStreamConfig;
    const subscription = openSubscription(config, context);
    const writer = sink.table({ name: config.table_name, disposition: 'merge', primaryKey: ['message_id'] });
    const ackIds: string[] = [];
    const seen = new Set<string>();
    while (seen.size < config.max_messages) {
      context.signal.throwIfAborted();
      const received = await subscription.pull(Math.min(config.batch_size, config.max_messages - seen.size));
      if (received.length === 0) break;
      ackIds.push(...received.map((message) => message.ackId));
      // A message whose ack deadline passed during a long sync comes again: once per sync is enough.
      const fresh = received.filter((message) => !seen.has(message.message.messageId));
      for (const message of fresh) seen.add(message.message.messageId);
      await writer.write(fresh.map(messageRecord));
    }
    context.log('INFO', `Pulled ${String(seen.size)} message(s) from ${config.subscription ?? ''}`);
    if (seen.size >= config.max_messages) context.log('INFO', `Stopped at max_messages (${String(config.max_messages)}); the rest waits for the next sync`);
    if (ackIds.length > 0) context.onCommitted(() => subscription.acknowledge(ackIds));
  },
};

export const cloudStreamType = defineSourceType({
  key: 'cloud_stream', category: 'Streaming', authType: 'Service Account', wizard: true, incremental: true,
  section: 'generic', schema: CloudStreamConfig,
  connector: cloudStreamConnector,
});
