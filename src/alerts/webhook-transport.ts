import { AlertDeliveryError } from './errors.ts';
import type { WebhookBody } from './alert-message.ts';

/** POSTs the body as JSON; any answer but 2xx is a failure. Errors name neither the URL nor its token. */
export async function sendWebhook(url: string, body: WebhookBody, signal: AbortSignal): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal, redirect: 'error',
    });
  } catch (error) {
    if (signal.aborted) throw new AlertDeliveryError('the webhook did not answer in time');
    throw new AlertDeliveryError(`the webhook could not be reached (${networkCodeOf(error)})`);
  }
  await response.body?.cancel();
  if (!response.ok) throw new AlertDeliveryError(`the webhook answered HTTP ${String(response.status)}`);
}

/** `ECONNREFUSED`, `ENOTFOUND`...: fetch's cause says why, its message only "fetch failed". */
function networkCodeOf(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error && 'code' in cause && typeof cause.code === 'string') return cause.code;
  return 'network error';
}
