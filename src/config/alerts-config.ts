import { z } from 'zod';

/** What an alert can be sent for: each is an incident that opens once and, for all but the test, is resolved later. */
export const INCIDENT_KINDS = ['sync_failed', 'transform_run_failed', 'source_stale', 'schedule_missed', 'transform_test_failed'] as const;
export type IncidentKind = (typeof INCIDENT_KINDS)[number];

const EnvName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'expected an environment variable name such as ALERT_WEBHOOK_URL');
const AlertName = z.string().regex(/^[a-z][a-z0-9_-]*$/, 'expected lowercase letters, digits, - and _, starting with a letter');

/**
 * SMTP delivery: the server and addresses here, the credentials in `.env` under the names given.
 * `tls`: `starttls` upgrades the connection and refuses a server that cannot, `implicit` speaks TLS from the first
 * byte (port 465), `none` never encrypts (a relay on the same host).
 */
const Email = z.strictObject({
  host: z.string().min(1).regex(/^[A-Za-z0-9.:[\]-]+$/, 'expected a host name or IP address'),
  port: z.number().int().min(1).max(65535).default(587),
  user_env: EnvName.optional(),
  password_env: EnvName.optional(),
  from: z.email(),
  to: z.array(z.email()).min(1),
  tls: z.enum(['starttls', 'implicit', 'none']).default('starttls'),
}).refine((email) => (email.user_env === undefined) === (email.password_env === undefined), {
  message: 'user_env and password_env go together', path: ['password_env'],
});

/** One alert destination: a webhook (Slack-compatible JSON) or an email, and the incidents it is sent for. */
const Alert = z.strictObject({
  name: AlertName,
  webhook_url_env: EnvName.optional(),
  email: Email.optional(),
  on: z.array(z.enum(INCIDENT_KINDS)).min(1),
}).refine((alert) => (alert.webhook_url_env === undefined) !== (alert.email === undefined), {
  message: 'an alert needs exactly one of webhook_url_env or email',
});

export const Alerts = z.array(Alert).superRefine((alerts, context) => {
  const seen = new Set<string>();
  alerts.forEach((alert, index) => {
    if (seen.has(alert.name)) context.addIssue({ code: 'custom', path: [index, 'name'], message: `duplicate alert name "${alert.name}"` });
    seen.add(alert.name);
  });
}).default([]);

export type AlertConfig = z.output<typeof Alert>;
export type EmailAlertConfig = z.output<typeof Email>;
