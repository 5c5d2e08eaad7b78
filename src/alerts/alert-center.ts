import type { AlertConfig, IncidentKind } from '../config/index.ts';
import { describeError } from '../errors.ts';
import type { EventBus, QuarryEvent } from '../events/index.ts';
import type { Logger } from '../logger.ts';
import type { SecretRedactor } from '../sources/config/index.ts';
import type { OutboundPolicy } from '../sources/index.ts';
import type { OutboxEntry, Store } from '../store/index.ts';
import { emailOf, eventNameOf, webhookBodyOf, type AlertMessage } from './alert-message.ts';
import { sendEmail } from './email-transport.ts';
import { AlertDeliveryError, AlertNotFoundError } from './errors.ts';
import { sendWebhook } from './webhook-transport.ts';

/** How long one delivery (an HTTP POST, an SMTP conversation) may take. */
const DELIVERY_TIMEOUT_MS = 10_000;
/** The first retry waits this long; each next one twice as long, up to the cap. */
const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_MS = 15 * 60_000;
/** A message still undelivered this long after it was written is given up on. */
const GIVE_UP_AFTER_MS = 24 * 3_600_000;
/** The longest a wait for the next due message lasts, so that a moved clock is noticed. */
const MAX_WAIT_MS = 60_000;

/** Something that went wrong with a source, model or schedule, keyed by kind and subject. */
export interface Incident {
  readonly kind: IncidentKind;
  /** The source, model or schedule name. */
  readonly subject: string;
  readonly error: string;
}

/** What an AlertCenter needs: the store for incidents and the outbox, the bus, the alerts and where their credentials are. */
export interface AlertCenterOptions {
  readonly store: Store;
  readonly events: EventBus;
  /** project.yml's `alerts:`. */
  readonly alerts: readonly AlertConfig[];
  /** The project's name, shown in every message. */
  readonly project: string;
  /** Where `webhook_url_env`, `user_env` and `password_env` are looked up. */
  readonly env: Readonly<Record<string, string>>;
  /** Where webhooks may be sent (project.yml's `network`). */
  readonly outbound: OutboundPolicy;
  /** Takes known secrets out of incidents (an upstream's error may quote one), messages and delivery errors. */
  readonly redactor: SecretRedactor;
  readonly log: Logger;
  readonly now: () => Date;
  readonly timeoutMs?: number;
}

/**
 * Turns incidents into alert messages: an incident opens once (keyed by kind and subject) and its recovery is
 * announced once, whatever the retries in between. Messages go through the outbox in the platform DB, written in the
 * same transaction as the incident, and are delivered in the background with a timeout each, retried with backoff,
 * and after a restart sent by the next start. Syncs and model runs never wait for it.
 */
export class AlertCenter {
  readonly #options: AlertCenterOptions;
  readonly #timeoutMs: number;
  readonly #closing = new AbortController();
  #unsubscribe: (() => void) | undefined;
  #baseUrl: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  /** The bus's events, followed one at a time in the order they came. */
  #following: Promise<void> = Promise.resolve();
  #passRequested = false;
  #everyPending = false;

  constructor(options: AlertCenterOptions) {
    this.#options = options;
    this.#timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  }

  /** Follows syncs and model runs on the bus: a failure opens an incident, the next success ends it. */
  start(): void {
    this.#unsubscribe ??= this.#options.events.subscribe((event) => {
      this.#following = this.#following.then(() => this.#follow(event)).catch((error: unknown) => {
        this.#options.log.error({ err: error, type: event.type }, 'an event could not be turned into an incident');
      });
    });
  }

  /**
   * Starts delivering: everything pending (left by a previous run included) now, then each message when due.
   * Called once the platform listens, so that links carry the address users reach it at.
   */
  startDelivery(baseUrl: string): void {
    this.#baseUrl = baseUrl;
    this.#requestPass(true);
  }

  /** Opens the incident and queues its alerts, unless it is already open; true when this opened it. */
  async incident(incident: Incident): Promise<boolean> {
    const { store, now, redactor } = this.#options;
    const time = now().toISOString();
    const error = redactor.redact(incident.error);
    const opened = await store.transaction(async () => {
      if (!await store.alerts.openIncident({ ...incident, error, openedAt: time })) return false;
      await this.#enqueue({ status: 'firing', kind: incident.kind, subject: incident.subject, error, time });
      return true;
    });
    if (opened) this.#options.log.warn({ kind: incident.kind, subject: incident.subject }, 'incident opened');
    if (opened) this.#requestPass(false);
    return opened;
  }

  /** Ends the open incident of that kind and subject and queues the recovery messages; false when none was open. */
  async recovered(incident: Pick<Incident, 'kind' | 'subject'>): Promise<boolean> {
    const { store, now } = this.#options;
    const closed = await store.transaction(async () => {
      if (!await store.alerts.closeIncident(incident.kind, incident.subject)) return false;
      await this.#enqueue({ status: 'resolved', kind: incident.kind, subject: incident.subject, time: now().toISOString() });
      return true;
    });
    if (closed) this.#options.log.info({ kind: incident.kind, subject: incident.subject }, 'incident resolved');
    if (closed) this.#requestPass(false);
    return closed;
  }

  /** A schedule's run could not be done (skipped, or failed after its retries): a `schedule_missed` incident. */
  async missed(schedule: string, reason: string): Promise<void> {
    await this.incident({ kind: 'schedule_missed', subject: schedule, error: reason });
  }

  /**
   * Delivers the messages due now, those of the incidents the events heard so far opened or ended included;
   * resolves when that pass (and any already running) is over.
   */
  async deliverDue(): Promise<void> {
    await this.#following;
    this.#requestPass(false);
    await this.#running;
  }

  /** Sends a test message to one alert now, outside the outbox; throws AlertDeliveryError saying why it failed. */
  async sendTest(name: string, baseUrl: string): Promise<void> {
    const alert = this.#options.alerts.find((candidate) => candidate.name === name);
    if (alert === undefined) throw new AlertNotFoundError(name, this.#options.alerts.map((candidate) => candidate.name));
    const message: AlertMessage = { status: 'test', subject: name, time: this.#options.now().toISOString() };
    try {
      await this.#send(alert, message, baseUrl);
    } catch (error) {
      throw new AlertDeliveryError(`the test message to alert ${name} was not delivered: ${this.#options.redactor.redact(describeError(error))}`);
    }
  }

  /**
   * Stops following the bus and delivering, once the events already heard are turned into incidents; a message
   * being sent stays pending for the next start. Idempotent.
   */
  async close(): Promise<void> {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    await this.#following;
    this.#closing.abort();
    clearTimeout(this.#timer);
    await this.#running;
  }

  async #follow(event: QuarryEvent): Promise<void> {
    switch (event.type) {
      case 'sync_failed':
        await this.incident({ kind: 'sync_failed', subject: event.source, error: event.error });
        break;
      case 'sync_completed':
        await this.recovered({ kind: 'sync_failed', subject: event.source });
        break;
      case 'transform_run_failed':
        await this.incident({ kind: 'transform_run_failed', subject: event.model, error: event.error });
        break;
      case 'transform_run_completed':
        await this.recovered({ kind: 'transform_run_failed', subject: event.model });
        // The model's tests are recorded before its events: they pass again when none of their latest outcomes fails.
        if (!await this.#options.store.testResults.failsFor(event.model)) await this.recovered({ kind: 'transform_test_failed', subject: event.model });
        break;
      case 'transform_tests_passed':
        if (!await this.#options.store.testResults.failsFor(event.model)) await this.recovered({ kind: 'transform_test_failed', subject: event.model });
        break;
      case 'transform_test_failed':
        await this.incident({
          kind: 'transform_test_failed', subject: event.model,
          error: `The test ${event.test} failed: ${String(event.failures)} failing row${event.failures === 1 ? '' : 's'}`,
        });
        break;
      case 'schedule_completed':
        if (event.outcome === 'success') await this.recovered({ kind: 'schedule_missed', subject: event.schedule });
        break;
      default:
        break;
    }
  }

  /** One outbox row per alert that is sent this kind of incident. Runs inside the incident's transaction. */
  async #enqueue(message: AlertMessage): Promise<void> {
    const { store, alerts } = this.#options;
    for (const alert of alerts) {
      if (message.kind === undefined || !alert.on.includes(message.kind)) continue;
      await store.alerts.enqueue({ alert: alert.name, event: eventNameOf(message), message: JSON.stringify(message), createdAt: message.time });
    }
  }

  /** Runs delivery passes one at a time: a request during a pass makes one more pass after it. */
  #requestPass(everyPending: boolean): void {
    if (this.#baseUrl === undefined || this.#closing.signal.aborted) return;
    this.#passRequested = true;
    this.#everyPending ||= everyPending;
    this.#running ??= this.#runPasses().finally(() => { this.#running = undefined; });
  }

  async #runPasses(): Promise<void> {
    do {
      while (this.#passRequested && !this.#closing.signal.aborted) {
        this.#passRequested = false;
        const everyPending = this.#everyPending;
        this.#everyPending = false;
        try {
          await this.#deliverPending(everyPending);
        } catch (error) {
          this.#options.log.error({ err: error }, 'alert delivery pass failed; pending messages are tried again later');
        }
      }
      await this.#waitForNextDue();
      // A pass requested while the next due time was read is made now: its request found this one still running.
    } while (this.#passRequested && !this.#closing.signal.aborted);
  }

  async #deliverPending(everyPending: boolean): Promise<void> {
    const { store, now } = this.#options;
    const due = await store.alerts.pending(everyPending ? undefined : now().toISOString());
    for (const entry of due) {
      if (this.#closing.signal.aborted) return;
      await this.#deliver(entry);
    }
  }

  async #deliver(entry: OutboxEntry): Promise<void> {
    const { store, events, log, now, alerts } = this.#options;
    const alert = alerts.find((candidate) => candidate.name === entry.alert);
    const message = JSON.parse(entry.message) as AlertMessage;
    try {
      if (alert === undefined) throw new AlertNotFoundError(entry.alert, alerts.map((candidate) => candidate.name));
      await this.#send(alert, message, this.#baseUrl ?? '');
    } catch (error) {
      if (this.#closing.signal.aborted) return;
      const reason = this.#options.redactor.redact(describeError(error));
      const attemptedAt = now();
      const nextAttemptAt = alert === undefined ? undefined : retryTime(entry, attemptedAt);
      await store.alerts.markAttemptFailed(entry.id, reason, attemptedAt.toISOString(), nextAttemptAt);
      log.warn({ alert: entry.alert, event: entry.event, attempts: entry.attempts + 1, error: reason, nextAttemptAt: nextAttemptAt ?? null },
        nextAttemptAt === undefined ? 'alert not delivered; given up' : 'alert not delivered; it will be retried');
      await store.logs.append({
        timestamp: attemptedAt.toISOString(), level: 'WARNING', source: null,
        message: `Alert ${entry.alert} not delivered (${entry.event} of ${message.subject}): ${reason}; ${nextAttemptAt === undefined ? 'given up' : 'retrying'}`,
      });
      events.publish({ type: 'alert_failed', alert: entry.alert, event: entry.event, error: reason });
      return;
    }
    const sentAt = now().toISOString();
    await store.alerts.markSent(entry.id, sentAt);
    log.info({ alert: entry.alert, event: entry.event }, 'alert sent');
    await store.logs.append({ timestamp: sentAt, level: 'INFO', source: null, message: `Alert ${entry.alert} sent: ${entry.event} of ${message.subject}` });
    events.publish({ type: 'alert_sent', alert: entry.alert, event: entry.event });
  }

  async #send(alert: AlertConfig, message: AlertMessage, baseUrl: string): Promise<void> {
    const { env, project, outbound, redactor } = this.#options;
    // Redacted again as it leaves: a message queued before a secret was known may still hold it.
    const body = webhookBodyOf(redactor.redactStrings(message), alert.name, project, baseUrl);
    const signal = AbortSignal.any([this.#closing.signal, AbortSignal.timeout(this.#timeoutMs)]);
    if (alert.email !== undefined) {
      const { user_env: userEnv, password_env: passwordEnv } = alert.email;
      const credentials = userEnv === undefined || passwordEnv === undefined
        ? undefined : { user: requiredEnv(env, userEnv), pass: requiredEnv(env, passwordEnv) };
      await sendEmail(alert.email, credentials, emailOf(body), this.#timeoutMs, signal);
      return;
    }
    const urlEnv = alert.webhook_url_env ?? '';
    const url = requiredEnv(env, urlEnv);
    if (!URL.canParse(url)) throw new AlertDeliveryError(`${urlEnv} does not hold a URL`);
    await sendWebhook(url, body, { signal, outbound });
  }

  /** Wakes for the next due message; bounded, so that a clock moved forward (or a suspended host) is noticed. */
  async #waitForNextDue(): Promise<void> {
    clearTimeout(this.#timer);
    const next = await this.#options.store.alerts.nextAttemptAt();
    if (next === undefined || this.#closing.signal.aborted) return;
    const waitMs = Math.min(Math.max(Date.parse(next) - this.#options.now().getTime(), 0), MAX_WAIT_MS);
    this.#timer = setTimeout(() => { this.#requestPass(false); }, waitMs);
    this.#timer.unref();
  }
}

/** When a message that failed is tried again: 5 s, 10 s, 20 s... up to 15 min apart; undefined once it is too old. */
function retryTime(entry: OutboxEntry, attemptedAt: Date): string | undefined {
  if (attemptedAt.getTime() - Date.parse(entry.createdAt) >= GIVE_UP_AFTER_MS) return undefined;
  const delayMs = Math.min(FIRST_RETRY_MS * 2 ** entry.attempts, MAX_RETRY_MS);
  return new Date(attemptedAt.getTime() + delayMs).toISOString();
}

function requiredEnv(env: Readonly<Record<string, string>>, name: string): string {
  const value = env[name];
  if (value === undefined || value === '') throw new AlertDeliveryError(`${name} is not set in .env or the environment`);
  return value;
}
