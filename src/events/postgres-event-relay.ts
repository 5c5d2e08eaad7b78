import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../logger.ts';
import type { EventBus } from './event-bus.ts';
import { EVENT_TYPES, type QuarryEvent } from './quarry-event.ts';

const CHANNEL = 'quarry_events';
const RECONNECT_MS = 1000;
// PostgreSQL refuses a NOTIFY payload of 8000 bytes or more.
const MAX_NOTICE_BYTES = 7999;
const ELLIPSIS = '…';

export interface PostgresEventRelayOptions {
  bus: EventBus;
  connection: pg.ClientConfig;
  /** The platform store's schema: only processes of the same deployment hear each other. */
  schema: string;
  log: Logger;
}

interface Notice {
  schema: string;
  origin: string;
  event: QuarryEvent;
}

/**
 * Carries the events of a bus to the buses of every other process sharing the PostgreSQL platform store, and
 * theirs to it, through NOTIFY on one channel. Sending never throws into the bus and keeps the order of
 * publishing; an event too long for a notice arrives with its longest text shortened. While the listening
 * connection is down (until it is back, a second later) other processes' events are missed.
 */
export class PostgresEventRelay {
  /** What this relay's notices carry, so that it ignores its own; its connections are named `quarry-events-<origin>`. */
  readonly origin = randomBytes(8).toString('hex');
  readonly #bus: EventBus;
  readonly #config: pg.ClientConfig;
  readonly #schema: string;
  readonly #log: Logger;
  readonly #sender: pg.Pool;
  // Received events reach this relay's own bus listener too, and must not go out again; nor must those sent within a transaction.
  readonly #received = new WeakSet<QuarryEvent>();
  readonly #sentWithin = new WeakSet<QuarryEvent>();
  #sending: Promise<void> = Promise.resolve();
  #isSendFailing = false;
  #unsubscribe: (() => void) | undefined;
  #listener: pg.Client | undefined;
  #isReconnecting = false;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: PostgresEventRelayOptions) {
    this.#bus = options.bus;
    this.#config = { ...options.connection, application_name: `quarry-events-${this.origin}` };
    this.#schema = options.schema;
    this.#log = options.log;
    // A pool of one replaces a connection that dropped at the next send, where the failure is logged.
    this.#sender = new pg.Pool({ ...this.#config, max: 1 });
    this.#sender.on('error', () => undefined);
  }

  /** Resolves once listening, or after the first attempt failed (it goes on trying in the background). */
  async start(): Promise<void> {
    this.#unsubscribe ??= this.#bus.subscribe((event) => {
      if (!this.#received.has(event) && !this.#sentWithin.has(event)) this.#send(event);
    });
    await this.#listen();
  }

  /** Sends what was published before, then ends both connections. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe?.();
    clearTimeout(this.#retry);
    await this.#sending;
    await this.#sender.end().catch((error: unknown) => { this.#log.warn({ err: error }, 'could not close the event sending connection'); });
    await this.#listener?.end().catch(() => undefined);
  }

  /**
   * Sends stamped events (EventBus.stamp) to the other processes within the caller's PostgreSQL transaction, which
   * `executeSql` runs in: they arrive exactly when it commits (a job's ending with its record: a process killed right
   * after the commit cannot take them with it), and never if it rolls back. What was published before goes out first;
   * the same objects delivered on this process's bus afterwards (EventBus.receive) are not sent again.
   */
  async sendWithin(events: readonly QuarryEvent[], executeSql: (text: string, values: unknown[]) => Promise<unknown>): Promise<void> {
    await this.#sending;
    for (const event of events) {
      await executeSql('SELECT pg_notify($1, $2)', [CHANNEL, noticeText({ schema: this.#schema, origin: this.origin, event })]);
      this.#sentWithin.add(event);
    }
  }

  #send(event: QuarryEvent): void {
    const notice = noticeText({ schema: this.#schema, origin: this.origin, event });
    this.#sending = this.#sending.then(() => this.#notify(notice));
  }

  async #notify(notice: string): Promise<void> {
    try {
      await this.#sender.query('SELECT pg_notify($1, $2)', [CHANNEL, notice]);
      if (this.#isSendFailing) this.#log.info('sending events to the other processes again');
      this.#isSendFailing = false;
    } catch (error) {
      if (!this.#isSendFailing) this.#log.warn({ err: error }, 'could not send events to the other processes');
      this.#isSendFailing = true;
    }
  }

  async #listen(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client(this.#config);
    this.#listener = client;
    client.on('notification', (message) => { this.#deliver(message.payload); });
    client.on('error', () => { this.#lost(client); });
    client.on('end', () => { this.#lost(client); });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      if (this.#isReconnecting) this.#log.info('listening for the other processes\' events again');
      this.#isReconnecting = false;
    } catch {
      this.#lost(client);
    }
  }

  #deliver(payload: string | undefined): void {
    const notice = parseNotice(payload);
    if (notice?.schema !== this.#schema || notice.origin === this.origin) return;
    this.#received.add(notice.event);
    this.#bus.receive(notice.event);
  }

  #lost(client: pg.Client): void {
    if (client !== this.#listener) return;
    this.#listener = undefined;
    client.end().catch(() => undefined);
    if (this.#closed) return;
    if (!this.#isReconnecting) this.#log.warn('lost the connection listening for the other processes\' events; reconnecting');
    this.#isReconnecting = true;
    this.#retry = setTimeout(() => { void this.#listen(); }, RECONNECT_MS);
    this.#retry.unref();
  }
}

/** The notice as JSON, its longest texts shortened until it fits: a long error still says how it began. */
function noticeText(notice: Notice): string {
  const event: Record<string, unknown> = { ...notice.event };
  const text = (): string => JSON.stringify({ ...notice, event });
  const fits = (): boolean => Buffer.byteLength(text()) <= MAX_NOTICE_BYTES;
  for (let field = longestText(event); field !== undefined && !fits(); field = longestText(event)) {
    shortenToFit(event, field, fits);
  }
  return text();
}

/** The event's longest field of free text that can still be shortened. */
function longestText(event: Record<string, unknown>): string | undefined {
  let longest: string | undefined;
  let longestLength = ELLIPSIS.length;
  for (const [field, value] of Object.entries(event)) {
    if (field === 'type' || field === 'timestamp' || typeof value !== 'string') continue;
    if (value.length > longestLength) {
      longest = field;
      longestLength = value.length;
    }
  }
  return longest;
}

/** Cuts `field` to the longest beginning of its text with which the event fits, or to an ellipsis alone if none does. */
function shortenToFit(event: Record<string, unknown>, field: string, fits: () => boolean): void {
  const text = event[field] as string;
  let low = 0;
  let high = text.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    event[field] = beginning(text, middle);
    if (fits()) low = middle;
    else high = middle - 1;
  }
  event[field] = beginning(text, low);
}

function beginning(text: string, length: number): string {
  const kept = text.slice(0, length);
  // A cut through a surrogate pair would leave half a character.
  return `${/[\uD800-\uDBFF]$/.test(kept) ? kept.slice(0, -1) : kept}${ELLIPSIS}`;
}

function parseNotice(payload: string | undefined): Notice | undefined {
  if (payload === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || typeof parsed.schema !== 'string' || typeof parsed.origin !== 'string') return undefined;
  const { event } = parsed;
  if (!isRecord(event) || typeof event.timestamp !== 'string' || !EVENT_TYPES.includes(event.type as QuarryEvent['type'])) return undefined;
  return { schema: parsed.schema, origin: parsed.origin, event: event as QuarryEvent };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
