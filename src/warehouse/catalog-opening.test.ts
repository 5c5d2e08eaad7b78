import { describe, expect, it } from 'vitest';
import { openingCatalog } from './catalog-opening.ts';
import type { LakeLocation } from './lake-location.ts';

const embedded: LakeLocation = { catalog: { kind: 'sqlite', file: '/lake/catalog.sqlite' }, dataPath: '/lake/data/' };
const onPostgres: LakeLocation = {
  catalog: { kind: 'postgres', host: '127.0.0.1', port: 5432, database: 'test', user: 'postgres', metadataSchema: 'lake', password: undefined },
  dataPath: '/shared/lake/',
};

describe('opening the catalog one statement at a time', () => {
  it('starts each opening of an embedded catalog only after the one before it has ended, failed or not', async () => {
    const events: string[] = [];
    const opening = (name: string, outcome: 'ends' | 'fails') => openingCatalog(embedded, async () => {
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

  it('lets statements on a PostgreSQL catalog open it at once, beside each other', async () => {
    const events: string[] = [];
    const opening = (name: string) => openingCatalog(onPostgres, async () => {
      events.push(`${name} starts`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      events.push(`${name} ends`);
    });
    await Promise.all([opening('a'), opening('b')]);
    expect(events).toEqual(['a starts', 'b starts', 'a ends', 'b ends']);
  });
});
