import type { Logger } from '../logger.ts';
import type { SecretRedactor } from '../sources/config/index.ts';
import type { QuarryEvent } from './quarry-event.ts';

type Listener = (event: QuarryEvent) => void;
type WithoutTimestamp<T> = T extends unknown ? Omit<T, 'timestamp'> : never;

/**
 * The in-process bus: publishers never wait for, and are never broken by, a listener. What it carries reaches
 * viewers on the WebSocket and the alerts, so an event's text is redacted before any listener sees it.
 */
export class EventBus {
  readonly #listeners = new Set<Listener>();
  readonly #log: Logger;
  readonly #now: () => Date;
  readonly #redactor: SecretRedactor;

  constructor(log: Logger, now: () => Date, redactor: SecretRedactor) {
    this.#log = log;
    this.#now = now;
    this.#redactor = redactor;
  }

  /** Sends `event` to every listener, stamped with when it happened: `at` when that was before now (it was recorded first). */
  publish(event: WithoutTimestamp<QuarryEvent>, at: Date = this.#now()): void {
    this.#deliver(this.stamp(event, at));
  }

  /** The event as listeners get it, its text redacted and stamped with when it happened, for `receive` to send later. */
  stamp(event: WithoutTimestamp<QuarryEvent>, at: Date = this.#now()): QuarryEvent {
    return { ...this.#redactor.redactStrings(event), timestamp: at.toISOString() };
  }

  /** Sends to every listener, as it is, an event already stamped and redacted (by another process, or by `stamp`). */
  receive(event: QuarryEvent): void {
    this.#deliver(event);
  }

  /** Returns the function that unsubscribes. */
  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => { this.#listeners.delete(listener); };
  }

  #deliver(event: QuarryEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#log.error({ err: error, type: event.type }, 'event listener failed');
      }
    }
  }
}
