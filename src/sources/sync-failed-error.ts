/**
 * A sync that cannot succeed as configured: one line for history, logs and the sync_failed event.
 * `transient` marks one that may pass later (the vendor still answered 5xx or 429, or the network still failed,
 * after the connector's own retries): a schedule tries the sync again.
 */
export class SyncFailedError extends Error {
  readonly transient: boolean;
  constructor(message: string, options: { transient?: boolean } = {}) {
    super(message);
    this.transient = options.transient === true;
  }
}
