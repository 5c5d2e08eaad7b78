import { performance } from 'node:perf_hooks';

/**
 * An answer that may be a little stale, computed at most once per `maxAgeMs`: a status field that costs a system
 * call (whether the warehouse file exists) is not worth one on every request of a client that polls. Never for
 * anything a security decision rests on.
 */
export function recentAnswer<T>(maxAgeMs: number, compute: () => T): () => T {
  let answer: T;
  let computedAt = Number.NEGATIVE_INFINITY;
  return () => {
    const now = performance.now();
    if (now - computedAt >= maxAgeMs) {
      answer = compute();
      computedAt = now;
    }
    return answer;
  };
}
