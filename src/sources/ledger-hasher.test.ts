import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type LedgerEntry, type Store } from '../store/index.ts';
import { LedgerHasher } from './ledger-hasher.ts';

describe('LedgerHasher', () => {
  let dir: string;
  let store: Store;
  let hasher: LedgerHasher;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'quarry-hasher-'));
    store = openStore(path.join(dir, 'platform.db'));
    hasher = new LedgerHasher(store.fileLedger);
  });
  afterEach(async () => {
    await hasher.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A ledger entry as a sync records it for a file it loaded: without its hash. */
  const loaded = (file: string, content: string): LedgerEntry => {
    writeFileSync(file, content);
    const info = statSync(file);
    return { path: file, size: info.size, mtimeMs: Math.trunc(info.mtimeMs), sha256: '', rows: 1, loadedAt: '2026-01-01T00:00:00.000Z', reading: null, error: null };
  };

  it('records the hash of each file as the sync read it, in a worker thread, and leaves a file changed since with none', async () => {
    const kept = loaded(path.join(dir, 'kept.csv'), 'id\n1\n');
    const changed = loaded(path.join(dir, 'changed.csv'), 'id\n2\n');
    const gone = loaded(path.join(dir, 'gone.csv'), 'id\n3\n');
    await store.fileLedger.replace('shop', [kept, changed, gone]);
    writeFileSync(changed.path, 'id\n2\n22\n');
    rmSync(gone.path);

    hasher.hashLater('shop', [kept, changed, gone]);
    await hasher.settled('shop');

    const ledger = await store.fileLedger.forSource('shop');
    expect(ledger.get(kept.path)?.sha256).toBe(createHash('sha256').update('id\n1\n').digest('hex'));
    expect(ledger.get(changed.path)?.sha256).toBe('');
    expect(ledger.get(gone.path)?.sha256).toBe('');
  });

  it('records the hashes outside the transaction the sync asked in, so another caller\'s rollback keeps them', async () => {
    const entry = loaded(path.join(dir, 'a.csv'), 'id\n1\n');
    await store.transaction(async () => {
      await store.fileLedger.replace('shop', [entry]);
      hasher.hashLater('shop', [entry]);
    });
    // Open while the hash is recorded, then rolled back.
    const rolledBack = store.transaction(async () => {
      await store.fileLedger.forSource('other');
      await delay(1000);
      throw new Error('rolled back');
    });
    await expect(rolledBack).rejects.toThrow('rolled back');
    await hasher.idle();
    expect((await store.fileLedger.forSource('shop')).get(entry.path)?.sha256).toBe(createHash('sha256').update('id\n1\n').digest('hex'));
  });

  it('never overwrites a hash a later sync recorded, and is idle once every source is hashed', async () => {
    const entry = loaded(path.join(dir, 'a.csv'), 'id\n1\n');
    await store.fileLedger.replace('shop', [{ ...entry, sha256: 'recorded-by-a-later-sync' }]);
    hasher.hashLater('shop', [entry]);
    hasher.hashLater('other', [loaded(path.join(dir, 'b.csv'), 'id\n2\n')]);
    await hasher.idle();
    expect((await store.fileLedger.forSource('shop')).get(entry.path)?.sha256).toBe('recorded-by-a-later-sync');
  });
});
