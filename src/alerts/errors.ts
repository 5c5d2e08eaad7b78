import { NotFoundError, QuarryError } from '../errors.ts';

/** `quarry alert test NAME` (or an outbox message) names an alert project.yml does not have. */
export class AlertNotFoundError extends NotFoundError {
  override readonly code = 'alert_not_found';
  constructor(name: string, known: readonly string[]) {
    super(`No alert named "${name}" in project.yml${known.length === 0 ? ' (it has no alerts:)' : ` (alerts: ${known.join(', ')})`}`);
  }
}

/** A message the destination did not take; the message never holds the webhook URL or the SMTP password. */
export class AlertDeliveryError extends QuarryError {
  readonly code = 'alert_delivery_failed';
}
