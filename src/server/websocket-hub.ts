import type { WebSocket } from '@fastify/websocket';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { EVENT_TYPES, type QuarryEvent } from '../events/index.ts';

/** A client whose unsent data passes this is too slow to follow the feed and is dropped. */
const MAX_BUFFERED_BYTES = 1024 * 1024;
const CHECK_INTERVAL_MS = 15_000;
export const SESSION_ENDED_CLOSE_CODE = 4401;

const Subscribe = z.strictObject({
  action: z.literal('subscribe'),
  types: z.array(z.enum(EVENT_TYPES as [QuarryEvent['type'], ...QuarryEvent['type'][]])).optional(),
  sources: z.array(z.string().max(63)).max(500).optional(),
});

export type SocketCredential = { kind: 'session'; token: string; sessionId: string } | { kind: 'api_key'; key: string };

interface Client {
  readonly socket: WebSocket;
  readonly credential: SocketCredential;
  types: ReadonlySet<string> | null;
  sources: ReadonlySet<string> | null;
  alive: boolean;
}

/** Fans events out to WebSocket clients: per-client filters, bounded buffers, closed when the session ends. */
export class WebSocketHub {
  readonly #ctx: AppContext;
  readonly #clients = new Set<Client>();
  readonly #unsubscribe: () => void;
  readonly #timer: NodeJS.Timeout;
  /** Whether a check is under way: the next waits for its turn rather than overlap it. */
  #checking = false;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
    this.#unsubscribe = ctx.events.subscribe((event) => { this.#broadcast(event); });
    this.#timer = setInterval(() => {
      if (this.#checking) return;
      this.#checking = true;
      void this.#check()
        .catch((error: unknown) => { this.#ctx.log.error({ err: error }, 'the WebSocket clients could not be checked'); })
        .finally(() => { this.#checking = false; });
    }, CHECK_INTERVAL_MS);
    this.#timer.unref();
  }

  add(socket: WebSocket, credential: SocketCredential): void {
    const client: Client = { socket, credential, types: null, sources: null, alive: true };
    this.#clients.add(client);
    socket.on('pong', () => { client.alive = true; });
    socket.on('close', () => { this.#clients.delete(client); });
    socket.on('error', () => { this.#clients.delete(client); });
    socket.on('message', (data, isBinary) => {
      const text = !isBinary && Buffer.isBuffer(data) ? data.toString('utf8') : undefined;
      const parsed = text === undefined ? undefined : Subscribe.safeParse(safeJson(text));
      if (!parsed?.success) {
        socket.close(1008, 'Send {"action":"subscribe","types":[...],"sources":[...]}');
        return;
      }
      client.types = parsed.data.types === undefined ? null : new Set(parsed.data.types);
      client.sources = parsed.data.sources === undefined ? null : new Set(parsed.data.sources);
    });
  }

  /** Closes every socket opened with that session (logout, revocation). */
  closeSession(sessionId: string): void {
    for (const client of this.#clients) {
      if (client.credential.kind === 'session' && client.credential.sessionId === sessionId) {
        client.socket.close(SESSION_ENDED_CLOSE_CODE, 'Session ended');
      }
    }
  }

  get size(): number {
    return this.#clients.size;
  }

  close(): void {
    clearInterval(this.#timer);
    this.#unsubscribe();
    for (const client of this.#clients) client.socket.close(1001, 'Quarry is shutting down');
  }

  #broadcast(event: QuarryEvent): void {
    const message = JSON.stringify(event);
    const source = 'source' in event ? event.source : undefined;
    for (const client of this.#clients) {
      if (client.types !== null && !client.types.has(event.type)) continue;
      if (client.sources !== null && (source === undefined || !client.sources.has(source))) continue;
      if (client.socket.bufferedAmount > MAX_BUFFERED_BYTES) {
        this.#ctx.log.warn({ bufferedBytes: client.socket.bufferedAmount }, 'dropping a slow WebSocket client');
        client.socket.terminate();
        this.#clients.delete(client);
        continue;
      }
      client.socket.send(message);
    }
  }

  /** Liveness by WebSocket ping, and credentials that ended (expiry, revocation, deactivation) close the socket. */
  async #check(): Promise<void> {
    for (const client of [...this.#clients]) {
      if (!client.alive) {
        client.socket.terminate();
        this.#clients.delete(client);
        continue;
      }
      const valid = client.credential.kind === 'session'
        ? await this.#ctx.auth.actorFromSessionToken(client.credential.token) !== undefined
        : await this.#ctx.auth.actorFromApiKey(client.credential.key) !== undefined;
      // Gone while its credential was looked up.
      if (!this.#clients.has(client)) continue;
      if (!valid) {
        client.socket.close(SESSION_ENDED_CLOSE_CODE, 'Session ended');
        continue;
      }
      client.alive = false;
      client.socket.ping();
    }
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
