import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openLakeForWriting } from './lake-connection.ts';
import type { LakeLocation } from './lake-location.ts';
import { WarehouseReaders } from './read-query.ts';
import { LakeWriter } from './lake-writer.ts';

const execFileAsync = promisify(execFile);
const LIMITS = { maxRows: 1_000, timeoutMs: 30_000 };
const signal = (): AbortSignal => AbortSignal.timeout(60_000);

describe('a pooled reader\'s snapshot, kept for the next query while nothing is written', () => {
  let root: string;
  let lake: LakeLocation;
  let writer: LakeWriter;
  let readers: WarehouseReaders;
  let rows = 3;

  /** Commits as no writer of Quarry may: without telling readers, so only a transaction begun after it sees it. */
  const writeUnannounced = async (sql: string): Promise<void> => {
    const writer = await openLakeForWriting(lake);
    try {
      await writer.connection.run(sql);
    } finally {
      await writer.close();
    }
  };
  const insertUnannounced = (): Promise<void> => writeUnannounced(`INSERT INTO s.t VALUES (${String(rows++)})`);
  const insert = (): Promise<void> => writer.write(({ transaction }) => transaction(async (connection) => {
    await connection.run(`INSERT INTO s.t VALUES (${String(rows++)})`);
  }), { signal: signal() });
  const count = async (from: WarehouseReaders = readers): Promise<number> => Number((await from.run('SELECT count(*) FROM s.t', LIMITS)).rows[0]?.[0]);

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'quarry-readers-'));
    lake = { catalog: { kind: 'sqlite', file: path.join(root, 'catalog.sqlite') }, dataPath: `${path.join(root, 'data')}${path.sep}` };
    writer = new LakeWriter(lake, path.join(root, 'writer.lock'));
    await writer.write(({ transaction }) => transaction(async (connection) => {
      await connection.run('CREATE SCHEMA s');
      await connection.run('CREATE TABLE s.t AS SELECT range AS id FROM range(3)');
    }), { signal: signal() });
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });
  // One reader, which keeps its snapshot for as long as a test runs unless told otherwise.
  beforeEach(() => { readers = new WarehouseReaders(lake, { size: 1, snapshotKeptMs: 600_000 }); });
  afterEach(() => { readers.close(); });

  it('reads the next query in the snapshot of the one before while nothing was written, and a new one once a writer has written', async () => {
    const before = await count();
    await insertUnannounced();
    expect(await count()).toBe(before);
    await insert();
    expect(await count()).toBe(before + 2);
  });

  it('reads in a new snapshot once a writer in another process has written', async () => {
    const before = await count();
    await insertUnannounced();
    expect(await count()).toBe(before);
    const script = `import { LakeWriter } from ${JSON.stringify(path.join(import.meta.dirname, 'index.ts'))};
      await new LakeWriter(JSON.parse(process.env.LAKE), process.env.WRITER_LOCK).write(({ transaction }) =>
        transaction((connection) => connection.run('INSERT INTO s.t VALUES (-1)')), { signal: AbortSignal.timeout(60_000) });`;
    await execFileAsync(process.execPath, ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script], {
      env: { ...process.env, LAKE: JSON.stringify(lake), WRITER_LOCK: path.join(root, 'writer.lock') },
    });
    expect(await count()).toBe(before + 2);
  });

  it('reads what was committed in a turn of the lake\'s writer, as dbt commits in a model run, during the run and after it', async () => {
    let before = await count();
    await insertUnannounced();
    expect(await count()).toBe(before);
    before += 1;
    await writer.turn(async () => {
      await insertUnannounced();
      expect(await count()).toBe(before + 1);
      await insertUnannounced();
    }, { signal: signal() });
    expect(await count()).toBe(before + 2);

    before = await count();
    await writer.turn(() => insertUnannounced(), { signal: signal() });
    expect(await count()).toBe(before + 1);
  });

  it('reads in a new snapshot when Quarry\'s own SQL asks for one, as the health check does', async () => {
    const before = await count();
    await insertUnannounced();
    expect(await count()).toBe(before);
    const fresh = await readers.withReader(async (connection) => Number((await connection.runAndReadAll('SELECT count(*) FROM s.t')).getRows()[0]?.[0]), { freshSnapshot: true });
    expect(fresh).toBe(before + 1);
  });

  it('reads in a new snapshot after a query that failed', async () => {
    const before = await count();
    await insertUnannounced();
    expect(await count()).toBe(before);
    await expect(readers.run('SELECT * FROM s.no_such_table', LIMITS)).rejects.toThrow(/no_such_table/);
    expect(await count()).toBe(before + 1);
  });

  it('answers the next query after one whose borrower caught its interruption and went on', async () => {
    await count();
    const stop = new AbortController();
    await readers.withQuery('SELECT range AS i FROM range(100000000)', { maxRows: 100_000_000, timeoutMs: 30_000, signal: stop.signal }, async (result) => {
      try {
        for await (const batch of result.batches()) if (batch.length > 0) stop.abort();
      } catch {
        // a download whose client went away ends like this
      }
    });
    expect((await readers.run('SELECT 42 AS answer', LIMITS)).rows).toEqual([[42]]);
  });

  it('replaces the readers once a statement has left them unable to answer, the queries waiting for one included', async () => {
    // In a process of its own: DuckDB aborts a process whose broken connections are finalised, at its exit at the latest.
    // Quarry's own SQL is not checked, so a statement the check refuses stands for one it might not know yet.
    const script = `import { WarehouseReaders } from ${JSON.stringify(path.join(import.meta.dirname, 'index.ts'))};
      const readers = new WarehouseReaders(JSON.parse(process.env.LAKE), { size: 1 });
      const limits = { maxRows: 10, timeoutMs: 30_000 };
      const count = async () => (await readers.run('SELECT count(*) AS n FROM s.t', limits)).rows[0][0];
      const before = await count();
      const poisoned = readers.withReader((connection) => connection.run(process.env.POISON)).then(() => 'ran', (error) => error.message);
      const waiting = count();
      console.log(JSON.stringify([before, await poisoned, await waiting, await count()]));
      process.kill(process.pid, 'SIGKILL');`;
    const poison = `SELECT * FROM enable_logging(storage => 'file', storage_path => '${path.join(root, 'log')}')`;
    const child = await execFileAsync(process.execPath, ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script], {
      env: { ...process.env, LAKE: JSON.stringify(lake), POISON: poison },
    }).catch((error: unknown) => error as { stdout: string });
    const [before, poisoned, waiting, after] = JSON.parse(child.stdout) as unknown[];
    expect({ poisoned, waiting, after }).toEqual({ poisoned: 'ran', waiting: before, after: before });
    expect(existsSync(path.join(root, 'log'))).toBe(false);
  });

  it('reads in a new snapshot a while after the first one, however busy the reader is', async () => {
    const briefly = new WarehouseReaders(lake, { size: 1, snapshotKeptMs: 200 });
    try {
      const before = await count(briefly);
      await insertUnannounced();
      // Queries back to back, never idle for as long as the snapshot is kept.
      await expect.poll(() => count(briefly), { interval: 5, timeout: 10_000 }).toBe(before + 1);
    } finally {
      briefly.close();
    }
  });

  it('lets the snapshot go once the reader has been idle for a while, so the catalog\'s WAL can be checkpointed and restarted', async () => {
    const file = lake.catalog.kind === 'sqlite' ? lake.catalog.file : '';
    // Another process's SQLite, as the POSIX locks of two SQLite libraries in one process do not see each other.
    const checkpoint = async (): Promise<string> => (await execFileAsync('python3', ['-c',
      `import sqlite3; print(sqlite3.connect(${JSON.stringify(file)}, timeout=0).execute('PRAGMA wal_checkpoint(TRUNCATE)').fetchone()[0])`])).stdout.trim();
    const briefly = new WarehouseReaders(lake, { size: 1, snapshotKeptMs: 2_000 });
    try {
      await count(briefly);
      await insert();
      expect(await checkpoint()).toBe('1'); // busy: the reader's snapshot still reads the WAL
      await expect.poll(checkpoint, { interval: 250, timeout: 15_000 }).toBe('0');
    } finally {
      briefly.close();
    }
  });
});

describe('a result as the readers hand it on', () => {
  let root: string;
  let readers: WarehouseReaders;

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'quarry-results-'));
    const lake: LakeLocation = { catalog: { kind: 'sqlite', file: path.join(root, 'catalog.sqlite') }, dataPath: `${path.join(root, 'data')}${path.sep}` };
    await new LakeWriter(lake, path.join(root, 'writer.lock')).write(({ transaction }) => transaction((connection) => connection.run('CREATE SCHEMA s')), { signal: signal() });
    readers = new WarehouseReaders(lake, { size: 1 });
  });
  afterAll(() => {
    readers.close();
    rmSync(root, { recursive: true, force: true });
  });

  // Rows of a million characters each.
  const MEGABYTE_ROWS = "SELECT range AS i, repeat('x', 1000000) AS pad FROM range(100)";

  it('collects an answer up to 32 MB of JSON, cut at a row and said to be cut', async () => {
    const answer = await readers.run(MEGABYTE_ROWS, LIMITS);
    expect(answer.truncated).toBe(true);
    expect(answer.rows.map((row) => row[0])).toEqual(Array.from({ length: 33 }, (_, index) => String(index)));
    expect(JSON.stringify(answer.rows).length).toBeLessThanOrEqual(32 * 1024 * 1024);
  });

  it('refuses to build a value over 64 MB, which DuckDB would build outside its memory limit, and answers the next query', async () => {
    await expect(readers.run("SELECT length(repeat('x', 3000000000)) AS n", LIMITS)).rejects.toThrow(
      'Invalid Input Error: A value of more than 64 MB is not built here: repeat would make 3000000000 bytes',
    );
    await expect(readers.run("SELECT lpad('x', 2000000000, 'y') AS s", LIMITS)).rejects.toThrow(/lpad would make 2000000000 characters/);
    for (const qualified of ['system.main.repeat', 'system.repeat', '"SYSTEM".repeat']) {
      await expect(readers.run(`SELECT ${qualified}('x', 3000000000) AS s`, LIMITS)).rejects.toThrow(/^The function [a-z.]+repeat is not allowed here: call it as repeat, without the system catalog$/i);
    }
    await expect(readers.run("SELECT main.repeat('x', 3000000000) AS s", LIMITS)).rejects.toThrow(/repeat would make 3000000000 bytes/);
    expect((await readers.run("SELECT repeat('ab', 2) AS s, repeat([1], 2) AS l, rpad('7', 3, '0') AS p", LIMITS)).rows).toEqual([['abab', [1, 1], '700']]);
  });

  it('refuses an answer whose first row alone is over 32 MB, naming its size and the CSV download', async () => {
    await expect(readers.run("SELECT repeat('x', 40 * 1024 * 1024) AS big", LIMITS)).rejects.toThrow(
      "The result's first row is 41 MB as JSON, more than the 32 MB one answer holds: select fewer or shorter values, or download the result as CSV",
    );
    expect((await readers.run('SELECT 42 AS answer', LIMITS)).rows).toEqual([[42]]);
  });

  it('streams every row of a large result in batches of about a megabyte, not DuckDB\'s chunks of 2,048 rows', async () => {
    const batchSizes = await readers.withQuery(MEGABYTE_ROWS, LIMITS, async (result) => {
      const sizes: number[] = [];
      for await (const batch of result.batches()) sizes.push(batch.length);
      expect(result.truncated()).toBe(false);
      return sizes;
    });
    // A batch is handed on once it holds a megabyte: two of these rows.
    expect(batchSizes).toEqual(Array.from({ length: 50 }, () => 2));
    const small = await readers.withQuery('SELECT range AS i FROM range(5000)', LIMITS, async (result) => {
      const sizes: number[] = [];
      for await (const batch of result.batches()) sizes.push(batch.length);
      return { sizes, truncated: result.truncated() };
    });
    expect(small).toEqual({ sizes: [1000], truncated: true });
  });

  it('writes dates and times at infinity as DuckDB does, nested ones too', async () => {
    const answer = await readers.run(`SELECT 'infinity'::DATE AS d, '-infinity'::DATE AS nd, ['-infinity'::DATE, DATE '2024-02-29'] AS dates,
      'infinity'::TIMESTAMP_S AS s, '-infinity'::TIMESTAMP_MS AS ms, 'infinity'::TIMESTAMP_NS AS ns, '-infinity'::TIMESTAMP AS t, TIMESTAMP_NS '2024-01-01 00:00:00.5' AS finite`, LIMITS);
    expect(answer.rows).toEqual([['infinity', '-infinity', ['-infinity', '2024-02-29'], 'infinity', '-infinity', 'infinity', '-infinity', '2024-01-01 00:00:00.5']]);
  });
});
