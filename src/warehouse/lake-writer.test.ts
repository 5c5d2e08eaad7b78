import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUARRY_AUTHOR } from './commit-label.ts';
import { LakeWriter, type WriterTurn } from './lake-writer.ts';
import type { LakeLocation } from './lake-location.ts';
import { listSnapshots } from './snapshots.ts';
import { AbortedTransactionError } from './transaction.ts';
import { WarehouseBusyError } from './writer-lock-file.ts';

const execFileAsync = promisify(execFile);
const signal = (): AbortSignal => AbortSignal.timeout(60_000);

describe('the lake\'s one writer', () => {
  let root: string;
  let lake: LakeLocation;
  let writer: LakeWriter;

  const count = (): Promise<number> => writer.write(async ({ connection }) =>
    Number((await connection.runAndReadAll('SELECT count(*) FROM s.t')).getRows()[0]?.[0]), { signal: signal() });

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'quarry-writer-'));
    lake = { catalog: { kind: 'sqlite', file: path.join(root, 'catalog.sqlite') }, dataPath: `${path.join(root, 'data')}${path.sep}` };
    writer = new LakeWriter(lake, path.join(root, 'writer.lock'));
    await writer.write(({ transaction }) => transaction(async (connection) => {
      await connection.run('CREATE SCHEMA s');
      await connection.run('CREATE TABLE s.t (id INTEGER)');
    }), { signal: signal() });
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('opens the lake with the threads a write asks for, every core when it asks for none', async () => {
    const threads = (opening: { threads?: number }): Promise<number> => writer.write(async ({ connection }) =>
      Number((await connection.runAndReadAll("SELECT current_setting('threads')")).getRows()[0]?.[0]), { signal: signal(), ...opening });
    expect(await threads({ threads: 1 })).toBe(1);
    expect(await threads({})).toBe(availableParallelism());
  });

  it('runs writes one at a time in the order they were asked for, a failed one not holding up the next', async () => {
    const order: string[] = [];
    const { promise: gate, resolve: open } = Promise.withResolvers<undefined>();
    const first = writer.write(async () => { order.push('first started'); await gate; order.push('first ended'); }, { signal: signal() });
    const failing = writer.write(() => { order.push('failing'); return Promise.reject(new Error('no')); }, { signal: signal() });
    const last = writer.write(async () => { order.push('last'); }, { signal: signal() });
    open(undefined);
    await first;
    await expect(failing).rejects.toThrow('no');
    await last;
    expect(order).toEqual(['first started', 'first ended', 'failing', 'last']);
  });

  it('commits each transaction as one snapshot carrying the label it was given', async () => {
    const label = { job: 41, kind: 'sync', target: 'orders' };
    await writer.write(({ transaction }) => transaction(async (connection) => {
      await connection.run('INSERT INTO s.t VALUES (1), (2)');
    }), { signal: signal(), label });
    const [latest] = await writer.write(({ connection }) => listSnapshots(connection, lake, 1), { signal: signal() });
    expect(latest).toMatchObject({ author: QUARRY_AUTHOR, message: 'sync orders (job 41)', job: { id: 41, kind: 'sync', target: 'orders' } });
  });

  it('holds one turn for every write made in it, and refuses a write once the turn has ended', async () => {
    const label = { job: 42, kind: 'run', target: 'all' };
    const order: string[] = [];
    let kept: WriterTurn | undefined;
    const turn = writer.turn(async (held) => {
      kept = held;
      await held.write(({ transaction }) => transaction((connection) => connection.run('INSERT INTO s.t VALUES (3)')));
      await Promise.resolve();
      order.push('turn');
      await held.write(({ transaction }) => transaction((connection) => connection.run('INSERT INTO s.t VALUES (4)')));
    }, { signal: signal(), label });
    const other = writer.write(async () => { order.push('other'); }, { signal: signal() });
    await Promise.all([turn, other]);
    expect(order).toEqual(['turn', 'other']);
    const jobs = await writer.write(({ connection }) => listSnapshots(connection, lake, 2), { signal: signal() });
    expect(jobs.map((snapshot) => snapshot.job?.id)).toEqual([42, 42]);
    await expect(kept?.write(() => Promise.resolve())).rejects.toThrow(/turn has ended/);
  });

  it('commits nothing of a transaction a statement failed in, even when the failure was caught', async () => {
    const before = await count();
    const failing = writer.write(({ transaction }) => transaction(async (connection) => {
      await connection.run('INSERT INTO s.t VALUES (5)');
      await connection.run("INSERT INTO s.t VALUES ('not a number')").catch(() => undefined);
    }), { signal: signal() });
    await expect(failing).rejects.toBeInstanceOf(AbortedTransactionError);
    expect(await count()).toBe(before);
  });

  it('interrupts the running statement when its signal aborts, committing nothing', async () => {
    const before = await count();
    const stop = new AbortController();
    const writing = writer.write(({ transaction }) => transaction(async (connection) => {
      await connection.run('INSERT INTO s.t VALUES (6)');
      setTimeout(() => { stop.abort(); }, 200);
      await connection.run('INSERT INTO s.t SELECT i::INTEGER FROM range(1000000000) r(i) WHERE md5(i::VARCHAR) <> \'\'');
    }), { signal: stop.signal });
    await expect(writing).rejects.toThrow(/interrupt/i);
    expect(await count()).toBe(before);
  });

  it('gives up its place in line when aborted before its turn', async () => {
    const { promise: gate, resolve: open } = Promise.withResolvers<undefined>();
    const holding = writer.turn(() => gate, { signal: signal() });
    const stop = new AbortController();
    let ran = false;
    const waiting = writer.write(async () => { ran = true; }, { signal: stop.signal });
    const after = writer.write(() => Promise.resolve('after'), { signal: signal() });
    stop.abort();
    // It leaves at once, while the turn before it still holds the writer.
    await expect(waiting).rejects.toThrow(/abort/i);
    open(undefined);
    await holding;
    await expect(after).resolves.toBe('after');
    expect(ran).toBe(false);
  });

  it('holds the lock between processes for its turn: another process\'s writer is refused meanwhile, and writes after it', async () => {
    const script = `import { LakeWriter } from ${JSON.stringify(path.join(import.meta.dirname, 'index.ts'))};
      try {
        await new LakeWriter(JSON.parse(process.env.LAKE), process.env.WRITER_LOCK).write(() => Promise.resolve(), { signal: AbortSignal.timeout(60_000) });
        console.log('written');
      } catch (error) {
        console.log(error.code);
      }`;
    const writeElsewhere = async (): Promise<string> => (await execFileAsync(process.execPath, ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script], {
      env: { ...process.env, LAKE: JSON.stringify(lake), WRITER_LOCK: path.join(root, 'writer.lock') },
    })).stdout.trim();
    const { promise: gate, resolve: open } = Promise.withResolvers<undefined>();
    const { promise: holding, resolve: holds } = Promise.withResolvers<undefined>();
    const held = writer.turn(async () => { holds(undefined); await gate; }, { signal: signal() });
    await holding;
    try {
      expect(await writeElsewhere()).toBe(new WarehouseBusyError('').code);
    } finally {
      open(undefined);
      await held;
    }
    expect(await writeElsewhere()).toBe('written');
  });
});
