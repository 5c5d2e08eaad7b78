/** How the scheduler waits: the system's timers in service, a clock the test moves by hand in tests. */
export interface Timer {
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimer: Timer = {
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (handle) => { clearTimeout(handle as NodeJS.Timeout); },
};

/** Resolves after `delayMs` on `timer`; rejects with the signal's reason when it aborts first. */
export function delay(timer: Timer, delayMs: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      timer.clearTimeout(handle);
      reject(signal.reason as Error);
    };
    const handle = timer.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, delayMs);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
