import type { IncidentKind } from '../config/index.ts';

/** What an alert message says, stored in the outbox as it is and turned into a webhook body or an email when sent. */
export interface AlertMessage {
  /** `firing` opens an incident, `resolved` ends it, `test` comes from `quarry alert test`. */
  readonly status: 'firing' | 'resolved' | 'test';
  /** The incident's kind; absent for a test. */
  readonly kind?: IncidentKind;
  /** The source, model or schedule concerned (for a test, the alert's name). */
  readonly subject: string;
  readonly error?: string;
  /** When it happened, ISO-8601 UTC. */
  readonly time: string;
}

/** The JSON a webhook receives: Slack's `text` and the same facts as fields. */
export interface WebhookBody {
  readonly text: string;
  readonly event: string;
  readonly status: AlertMessage['status'];
  readonly alert: string;
  readonly project: string;
  readonly source?: string;
  readonly model?: string;
  readonly schedule?: string;
  readonly error: string | null;
  readonly time: string;
  readonly url: string;
}

/** The name a message goes by in events and payloads: the incident's kind, `<kind>_resolved`, or `alert_test`. */
export function eventNameOf(message: AlertMessage): string {
  if (message.kind === undefined) return 'alert_test';
  return message.status === 'resolved' ? `${message.kind}_resolved` : message.kind;
}

const SUBJECT_FIELD = {
  sync_failed: 'source', source_stale: 'source', transform_run_failed: 'model', transform_test_failed: 'model', schedule_missed: 'schedule',
} as const satisfies Record<IncidentKind, 'source' | 'model' | 'schedule'>;

const HEADLINES: Record<IncidentKind, { firing: (subject: string) => string; resolved: (subject: string) => string }> = {
  sync_failed: { firing: (source) => `The sync of ${source} failed`, resolved: (source) => `${source} syncs again` },
  transform_run_failed: { firing: (model) => `The run of model ${model} failed`, resolved: (model) => `Model ${model} runs again` },
  source_stale: { firing: (source) => `${source} is stale`, resolved: (source) => `${source} is fresh again` },
  schedule_missed: { firing: (schedule) => `Schedule ${schedule} missed a run`, resolved: (schedule) => `Schedule ${schedule} runs again` },
  transform_test_failed: { firing: (model) => `Tests of model ${model} failed`, resolved: (model) => `Tests of model ${model} pass again` },
};

/** The page in Quarry where the person alerted sees what happened. */
function pagePath(message: AlertMessage): string {
  if (message.kind === undefined) return '/health';
  switch (SUBJECT_FIELD[message.kind]) {
    case 'source': return `/sources/${encodeURIComponent(message.subject)}`;
    case 'model': return '/models';
    case 'schedule': return '/';
  }
}

/** One line saying what happened, without the error. */
export function headlineOf(message: AlertMessage): string {
  if (message.kind === undefined) return `Test message for alert ${message.subject}: alerts reach this destination`;
  return HEADLINES[message.kind][message.status === 'resolved' ? 'resolved' : 'firing'](message.subject);
}

export function webhookBodyOf(message: AlertMessage, alert: string, project: string, baseUrl: string): WebhookBody {
  const url = `${baseUrl}${pagePath(message)}`;
  const headline = headlineOf(message);
  const error = message.error ?? null;
  return {
    text: `[${project}] ${headline}${error === null ? '' : `: ${error}`}\n${url}`,
    event: eventNameOf(message),
    status: message.status,
    alert,
    project,
    ...(message.kind === undefined ? {} : { [SUBJECT_FIELD[message.kind]]: message.subject }),
    error,
    time: message.time,
    url,
  };
}

/** An email's subject and plain-text body, with the same facts as the webhook's fields. */
export function emailOf(body: WebhookBody): { subject: string; text: string } {
  const subjectLine = body.text.split('\n')[0] ?? body.event;
  const details = [
    `Event: ${body.event}`,
    ...(body.source === undefined ? [] : [`Source: ${body.source}`]),
    ...(body.model === undefined ? [] : [`Model: ${body.model}`]),
    ...(body.schedule === undefined ? [] : [`Schedule: ${body.schedule}`]),
    ...(body.error === null ? [] : [`Error: ${body.error}`]),
    `Time: ${body.time}`,
    `Open in Quarry: ${body.url}`,
  ];
  return { subject: subjectLine.length > 180 ? `${subjectLine.slice(0, 177)}...` : subjectLine, text: `${details.join('\n')}\n` };
}
