import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommitSignal } from './commit-signal.ts';

describe('CommitSignal', () => {
  let dir: string;
  let file: string;
  let database: DatabaseSync;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'quarry-commit-signal-'));
    file = path.join(dir, 'platform.db');
    database = new DatabaseSync(file);
    database.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (value INTEGER)');
  });
  afterEach(async () => {
    database.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers maybe at first, then no until a connection commits, then maybe once', () => {
    const signal = new CommitSignal(file);
    const other = new DatabaseSync(file);
    try {
      expect(signal.mayHaveChanged()).toBe(true);
      expect(signal.mayHaveChanged()).toBe(false);
      database.prepare('SELECT count(*) FROM t').get();
      expect(signal.mayHaveChanged()).toBe(false);
      other.exec('INSERT INTO t VALUES (1)');
      expect(signal.mayHaveChanged()).toBe(true);
      expect(signal.mayHaveChanged()).toBe(false);
      database.exec('INSERT INTO t VALUES (2)');
      expect(signal.mayHaveChanged()).toBe(true);
    } finally {
      other.close();
      signal.close();
    }
  });

  it('always answers maybe for a database without a WAL index', () => {
    const signal = new CommitSignal(path.join(dir, 'missing.db'));
    expect(signal.mayHaveChanged()).toBe(true);
    expect(signal.mayHaveChanged()).toBe(true);
    signal.close();
  });
});
