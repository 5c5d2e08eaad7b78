import { describe, expect, it } from 'vitest';
import { inCatalogTurn } from './catalog-opening.ts';

describe('opening the catalog one statement at a time', () => {
  it('starts each opening of the catalog only after the one before it has ended, failed or not', async () => {
    const events: string[] = [];
    const opening = (name: string, outcome: 'ends' | 'fails') => inCatalogTurn(async () => {
      events.push(`${name} starts`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      events.push(`${name} ${outcome}`);
      if (outcome === 'fails') throw new Error(`${name} failed`);
      return name;
    });
    const results = await Promise.allSettled([opening('a', 'ends'), opening('b', 'fails'), opening('c', 'ends')]);
    expect(results.map((result) => result.status === 'fulfilled' ? result.value : (result.reason as Error).message)).toEqual(['a', 'b failed', 'c']);
    expect(events).toEqual(['a starts', 'a ends', 'b starts', 'b fails', 'c starts', 'c ends']);
  });
});
