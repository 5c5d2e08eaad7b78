import { once } from 'node:events';
import { SMTPServer } from 'smtp-server';
import { startFakeApi, type FakeApi } from './fake-api.ts';

/** A Slack-style incoming webhook on a loopback port; its URL carries a token, as real ones do. */
export interface WebhookReceiver {
  readonly api: FakeApi;
  /** The webhook's URL, token included: what .env would hold. */
  readonly url: string;
  /** The token inside the URL, to check that it shows up nowhere. */
  readonly token: string;
  /** The bodies it accepted (not those it answered with an injected failure), oldest first. */
  readonly accepted: Record<string, unknown>[];
  /** Answers the next `count` posts with these statuses before accepting again. */
  failNext(...statuses: number[]): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const token = `T0KEN${crypto.randomUUID().replaceAll('-', '')}`;
  const accepted: Record<string, unknown>[] = [];
  const api = await startFakeApi((app) => {
    app.post('/services/:token', async (request, reply) => {
      if ((request.params as { token: string }).token !== token) return reply.code(404).send({ error: 'no such hook' });
      accepted.push(request.body as Record<string, unknown>);
      return 'ok';
    });
  });
  return {
    api, token, accepted,
    url: `${api.url}/services/${token}`,
    failNext: (...statuses) => { api.inject(...statuses.map((status) => ({ status, atRequest: 1 }))); },
    close: () => api.close(),
  };
}

export interface ReceivedMail {
  readonly from: string;
  readonly to: string[];
  readonly user: string | undefined;
  /** The raw message: headers, blank line, body. */
  readonly data: string;
}

/** A local SMTP server without TLS that requires this user and password and keeps what it receives. */
export interface MailReceiver {
  readonly port: number;
  readonly received: ReceivedMail[];
  close(): Promise<void>;
}

export async function startMailReceiver(credentials: { user: string; password: string }): Promise<MailReceiver> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === credentials.user && auth.password === credentials.password) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => { chunks.push(chunk); });
      stream.on('end', () => {
        const from = session.envelope.mailFrom;
        received.push({
          from: from === false ? '' : from.address,
          to: session.envelope.rcptTo.map((address) => address.address),
          user: typeof session.user === 'string' ? session.user : undefined,
          data: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const address = server.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    port: address.port,
    received,
    close: () => new Promise<void>((resolve) => { server.close(() => { resolve(); }); }),
  };
}
