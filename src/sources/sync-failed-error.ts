/** A sync that cannot succeed as configured: one line for history, logs and the sync_failed event. */
export class SyncFailedError extends Error {}
