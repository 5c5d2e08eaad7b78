import { setTimeout as delay } from 'node:timers/promises';

/**
 * Waits for `finished` up to `graceMs`; past that, calls `interrupt` (abort the running work) and waits
 * for it to wind down. How the job lifecycle stops with the service.
 */
export async function finishWithin(finished: Promise<void>, graceMs: number, interrupt: () => void): Promise<void> {
  const graceOver = new AbortController();
  const timedOut = await Promise.race([
    finished.then(() => false),
    delay(graceMs, true, { signal: graceOver.signal }).catch(() => false),
  ]);
  graceOver.abort();
  if (timedOut) {
    interrupt();
    await finished;
  }
}
