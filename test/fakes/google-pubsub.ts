import { randomUUID } from 'node:crypto';
import { startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';
import { GoogleOAuth, makeServiceAccount } from './google-oauth.ts';

const SCOPE = 'https://www.googleapis.com/auth/pubsub';

interface StoredMessage { messageId: string; data: string; attributes?: Record<string, string>; publishTime: string }

/** A subscription's backlog: messages stay until acknowledged; a delivered one is leased until its deadline passes. */
export class PubSubSubscription {
  readonly messages: StoredMessage[] = [];
  readonly acknowledged = new Set<string>();
  /** ackId → the message it leases. */
  readonly #leases = new Map<string, string>();
  #published = 0;

  publish(data: string | Buffer, attributes?: Record<string, string>): string {
    this.#published += 1;
    const messageId = String(9_000_000 + this.#published);
    this.messages.push({ messageId, data: Buffer.from(data).toString('base64'), attributes, publishTime: new Date(Date.UTC(2026, 0, 5, 10, 0, this.#published)).toISOString() });
    return messageId;
  }

  /** What happens when the ack deadline of every delivered, unacknowledged message passes: they become deliverable again. */
  expireDeadlines(): void {
    this.#leases.clear();
  }

  /** Pub/Sub's seek to a time before the first message: every message is unacknowledged and deliverable again. */
  seekToStart(): void {
    this.acknowledged.clear();
    this.#leases.clear();
  }

  pull(maxMessages: number): { ackId: string; message: StoredMessage; deliveryAttempt: number }[] {
    const leased = new Set(this.#leases.values());
    const ready = this.messages.filter((message) => !this.acknowledged.has(message.messageId) && !leased.has(message.messageId)).slice(0, maxMessages);
    return ready.map((message) => {
      const ackId = `ack-${randomUUID()}`;
      this.#leases.set(ackId, message.messageId);
      return { ackId, message, deliveryAttempt: 1 };
    });
  }

  acknowledge(ackIds: readonly string[]): void {
    for (const ackId of ackIds) {
      const messageId = this.#leases.get(ackId);
      // An ack id whose lease expired acknowledges nothing, as in Pub/Sub.
      if (messageId !== undefined) this.acknowledged.add(messageId);
      this.#leases.delete(ackId);
    }
  }
}

/** Google Cloud Pub/Sub's REST API: `subscriptions/{sub}:pull` and `:acknowledge` behind service-account OAuth. */
export async function startPubSubFake(project: string, subscriptions: Map<string, PubSubSubscription>, oauth: GoogleOAuth): Promise<FakeApi> {
  const api: FakeApi = await startFakeApi((app) => {
    oauth.register(app, () => `${api.url}/token`);
    app.post('/v1/projects/:project/subscriptions/:method', (request, reply) => {
      const rejected = oauth.reject(request, reply, SCOPE);
      if (rejected !== undefined) return rejected;
      const params = request.params as { project: string; method: string };
      const [name = '', method] = params.method.split(':');
      const subscription = params.project === project ? subscriptions.get(name) : undefined;
      if (subscription === undefined) {
        return reply.code(404).send({ error: { code: 404, message: `Resource not found (resource=${name}).`, status: 'NOT_FOUND' } });
      }
      const body = request.body as { maxMessages?: number; ackIds?: string[] };
      if (method === 'pull') {
        if (body.maxMessages === undefined || body.maxMessages < 1) {
          return reply.code(400).send({ error: { code: 400, message: 'A required argument is missing in the request: (argument="max_messages").', status: 'INVALID_ARGUMENT' } });
        }
        const received = subscription.pull(Math.min(body.maxMessages, 1000));
        return received.length === 0 ? {} : { receivedMessages: received };
      }
      if (method === 'acknowledge') {
        subscription.acknowledge(body.ackIds ?? []);
        return {};
      }
      return reply.code(404).send({ error: { code: 404, message: 'Method not found.', status: 'NOT_FOUND' } });
    });
  });
  return api;
}

/** A subscription of 25 messages, pulled 10 at a time as a service account; seeked back before each sync. */
export const pubSubContract: ContractVendor = {
  type: 'cloud_stream',
  async start() {
    const oauth = new GoogleOAuth();
    const orders = new PubSubSubscription();
    for (let n = 1; n <= 25; n += 1) orders.publish(JSON.stringify({ order_id: n, total: n * 2.5 }));
    const api = await startPubSubFake('quarry-test', new Map([['orders-sub', orders]]), oauth);
    const account = makeServiceAccount(`${api.url}/token`);
    oauth.serviceAccounts.set(account.clientEmail, account);
    return {
      api, env: { CLOUD_STREAM_CREDENTIALS: account.keyFile }, pagedPath: '/v1/projects/', table: 'messages', key: 'message_id',
      section: ['generic_config:', '  subscription: orders-sub', '  credentials_env: CLOUD_STREAM_CREDENTIALS', '  batch_size: 10', `  base_url: "${api.url}"`],
      beforeSync: () => { orders.seekToStart(); },
      revoke() {
        // The key was deleted in the Cloud console: Google now knows the account by another key.
        oauth.serviceAccounts.set(account.clientEmail, makeServiceAccount(`${api.url}/token`));
        return () => { oauth.serviceAccounts.set(account.clientEmail, account); };
      },
      refusal: (url) => `POST ${url}/token answered 400 Bad Request: Invalid JWT Signature.`,
    };
  },
};
