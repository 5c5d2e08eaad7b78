import { OutboundRefusedError, type OutboundPolicy } from '../sources/index.ts';
import { AlertDeliveryError } from './errors.ts';
import type { WebhookBody } from './alert-message.ts';

/** POSTs the body as JSON; any answer but 2xx is a failure. Errors name neither the URL nor its token. */
export async function sendWebhook(url: string, body: WebhookBody, options: { signal: AbortSignal; outbound: OutboundPolicy }): Promise<void> {
  const { signal, outbound } = options;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal, redirect: 'error', dispatcher: outbound.dispatcher,
    });
  } catch (error) {
    if (signal.aborted) throw new AlertDeliveryError('the webhook did not answer in time');
    const cause = error instanceof Error ? error.cause : undefined;
    // The refusal names the host, which may be the URL's only secret part: the reader learns the range alone.
    if (cause instanceof OutboundRefusedError) throw new AlertDeliveryError(`the webhook's address is refused: ${cause.range}; an admin can allow the host under network.allow_private in project.yml`);
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
