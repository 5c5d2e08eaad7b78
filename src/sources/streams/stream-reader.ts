import type { ConnectorLogLevel } from '../connector.ts';

/** What a stream reader needs from the sync: where it stopped last time, limits, and where each message goes. */
export interface StreamReadRequest {
  /** The consumer group (Kafka) or durable consumer (NATS) whose committed position is Quarry's. */
  readonly consumerName: string;
  /** Read again from `start_from`, as if never read. */
  readonly fullRefresh: boolean;
  /** The position saved with the last committed load, by key (a topic, a stream). */
  readonly saved: (key: string) => unknown;
  readonly maxMessages: number;
  /** How long a read waits for a message before deciding the stream is drained. */
  readonly idleMs: number;
  readonly signal: AbortSignal;
  readonly write: (table: string, record: Record<string, unknown>) => Promise<void>;
  readonly log: (level: ConnectorLogLevel, message: string) => void;
}

/** What one sync read: every message already went to `write`. */
export interface StreamRead {
  readonly messages: number;
  /** Positions to save with the data, by key; read back through `saved` on the next sync. */
  readonly positions: ReadonlyMap<string, unknown>;
  /** Commits the positions on the broker; called only once the data is in the warehouse, so it opens its own connection. */
  readonly acknowledge: () => Promise<void>;
}
