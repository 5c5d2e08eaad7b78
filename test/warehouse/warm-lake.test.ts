import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LakeWriter, listSnapshots, type LakeLocation, type LakeWrite, type WriteOptions } from '../../src/warehouse/index.ts';
import { WarmLake } from '../../src/warehouse/warm-lake.ts';
import { LOCAL_POSTGRES, onPostgres } from '../support/local-postgres.ts';

// A lake of this file's own: its catalog a schema in the local PostgreSQL, its data in a temporary folder.
const schema = `quarry_warm_test_${String(process.pid)}_${Date.now().toString(36)}`;
const signal = (): AbortSignal => AbortSignal.timeout(60_000);

/**
 * A global setting identifies the DuckDB instance a write was given: one write sets it, and only a write on the
 * same instance reads it back.
 */
const memoryLimit = async ({ connection }: Pick<LakeWrite, 'connection'>): Promise<string> =>
  String((await connection.runAndReadAll("SELECT current_setting('memory_limit')")).getRows()[0]?.[0]);
const markInstance = async (write: Pick<LakeWrite, 'connection'>): Promise<string> => {
  await write.connection.run("SET GLOBAL memory_limit = '1234MiB'");
  return memoryLimit(write);
};

describe('small writes to a lake with a PostgreSQL catalog', () => {
  let root: string;
  let lake: LakeLocation;
  let writer: LakeWriter;
  const small = (options: Partial<WriteOptions> = {}): WriteOptions => ({ signal: signal(), threads: 1, ...options });
  const rowsOf = (table: string): Promise<number> => writer.write(async ({ connection }) =>
    Number((await connection.runAndReadAll(`SELECT count(*) FROM ${table}`)).getRows()[0]?.[0]), small());

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'quarry-warm-lake-'));
    lake = { catalog: { kind: 'postgres', ...LOCAL_POSTGRES, metadataSchema: schema, password: undefined }, dataPath: `${path.join(root, 'data')}${path.sep}` };
    writer = new LakeWriter(lake, path.join(root, 'writer.lock'));
    await writer.write(({ transaction }) => transaction(async (connection) => {
      for (const table of ['a', 'b', 'c']) await connection.run(`CREATE TABLE ${table} (id INTEGER)`);
    }), { signal: signal() });
  }, 60_000);

  afterAll(async () => {
    await writer.close();
    await onPostgres((client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
    await rm(root, { recursive: true, force: true });
  });

  it('share one DuckDB instance with the lake attached, which a write asking for every core is not given', async () => {
    const mark = await writer.write(markInstance, small());
    expect(await writer.write(memoryLimit, small())).toBe(mark);
    expect(await writer.write(memoryLimit, { signal: signal() })).not.toBe(mark);
  });

  it('run side by side, each in a transaction and snapshot of its own with its label', async () => {
    const tables = ['a', 'b', 'c'];
    await Promise.all(tables.map((table, index) => writer.write(({ transaction }) => transaction((connection) =>
      connection.run(`INSERT INTO ${table} SELECT range FROM range(${String(100 * (index + 1))})`)), small({ alongside: table, label: { job: 900 + index, kind: 'sync', target: table } }))));
    expect(await Promise.all(tables.map(rowsOf))).toEqual([100, 200, 300]);
    const snapshots = await writer.write(({ connection }) => listSnapshots(connection, lake, 3), small());
    expect(snapshots.map((snapshot) => snapshot.job?.id).toSorted()).toEqual([900, 901, 902]);
    expect(snapshots.find((snapshot) => snapshot.job?.id === 901)?.tablesChanged).toEqual(['main.b']);
  });

  it('see what another instance committed since the shared one was opened', async () => {
    const before = await rowsOf('a');
    const elsewhere = new LakeWriter(lake, path.join(root, 'writer.lock'));
    await elsewhere.write(({ transaction }) => transaction((connection) => connection.run('INSERT INTO a VALUES (-1), (-2)')), { signal: signal() });
    expect(await rowsOf('a')).toBe(before + 2);
  });

  it('interrupt only the aborted write\'s statement; the write beside it commits', async () => {
    const before = await rowsOf('b');
    const aborting = new AbortController();
    const { promise: started, resolve: tellStarted } = Promise.withResolvers<undefined>();
    const aborted = writer.write(({ transaction }) => transaction(async (connection) => {
      tellStarted(undefined);
      await connection.run('SELECT sum(hash(range)) FROM range(10000000000)');
    }), small({ signal: aborting.signal, alongside: 'a' }));
    await started;
    // DuckDB forgets an interrupt that comes before the statement has begun on its thread.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const beside = writer.write(({ transaction }) => transaction((connection) => connection.run('INSERT INTO b VALUES (7)')), small({ alongside: 'b' }));
    aborting.abort(new Error('stopped'));
    await expect(aborted).rejects.toThrow();
    await beside;
    expect(await rowsOf('b')).toBe(before + 1);
  });

  it('give the write after a failed one, and after close, an instance of its own', async () => {
    const mark = await writer.write(markInstance, small());
    expect(await writer.write(memoryLimit, small())).toBe(mark);
    await expect(writer.write(({ connection }) => connection.run('SELECT * FROM no_such_table'), small())).rejects.toThrow(/no_such_table/);
    expect(await writer.write(memoryLimit, small())).not.toBe(mark);

    const markAgain = await writer.write(markInstance, small());
    await writer.close();
    expect(await writer.write(memoryLimit, small())).not.toBe(markAgain);
    expect(await rowsOf('c')).toBe(300);
  });

  it('close the shared instance once it has been unused for a while', async () => {
    const warm = new WarmLake(lake, 200);
    const limitOn = async (): Promise<string> => {
      const opened = await warm.connect();
      try {
        return await memoryLimit(opened);
      } finally {
        await opened.release(false);
      }
    };
    const first = await warm.connect();
    const mark = await markInstance(first);
    await first.release(false);
    expect(await limitOn()).toBe(mark);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await limitOn()).not.toBe(mark);
    await warm.close();
  });

  it('close, when asked, once the write using the shared instance lets it go', async () => {
    const warm = new WarmLake(lake);
    const held = await warm.connect();
    let closed = false;
    const closing = warm.close().then(() => { closed = true; });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(closed).toBe(false);
    expect(await memoryLimit(held)).toMatch(/B$/);
    await held.release(false);
    await closing;
    expect(closed).toBe(true);
  });
});
