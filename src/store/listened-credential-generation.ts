import pg from 'pg';

const CHANNEL = 'quarry_credentials';
const RECONNECT_MS = 1000;

/**
 * The credential generation of a PostgreSQL store, kept in memory and moved on by the notices that its triggers
 * send as a change to a user, session or key commits, from any process of the deployment. While it is not
 * listening (starting, or reconnecting after the connection dropped) it cannot know, so every call answers a new
 * generation and the caches that compare it resolve each credential afresh.
 */
export class ListenedCredentialGeneration {
  readonly #config: pg.ClientConfig;
  readonly #schema: string;
  #generation = 0;
  #listening = false;
  #client: pg.Client | undefined;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(config: pg.ClientConfig, schema: string) {
    this.#config = config;
    this.#schema = schema;
  }

  current(): number {
    return this.#listening ? this.#generation : ++this.#generation;
  }

  /** Resolves once listening, or after the first attempt failed (it goes on trying in the background). */
  async start(): Promise<void> {
    const client = new pg.Client(this.#config);
    this.#client = client;
    client.on('notification', (notice) => {
      if (notice.payload === this.#schema) this.#generation++;
    });
    client.on('error', () => { this.#lost(client); });
    client.on('end', () => { this.#lost(client); });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      // A change may have committed before LISTEN took effect: the new generation makes every cache look again.
      this.#generation++;
      this.#listening = !this.#closed;
    } catch {
      this.#lost(client);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#listening = false;
    clearTimeout(this.#retry);
    await this.#client?.end().catch(() => undefined);
  }

  #lost(client: pg.Client): void {
    if (client !== this.#client) return;
    this.#listening = false;
    this.#client = undefined;
    client.end().catch(() => undefined);
    if (this.#closed) return;
    this.#retry = setTimeout(() => { void this.start(); }, RECONNECT_MS);
    this.#retry.unref();
  }
}
