import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { logMessages, syncAndWait } from '../support/sync.ts';

const ROWS = 1_000_000;
const suffix = randomBytes(4).toString('hex');

function sourcesYaml(name: string, urlEnv: string, config: string): string {
  return `sources:\n  - name: ${name}\n    type: relational_db\n    generic_config:\n      credentials_env: ${urlEnv}\n${config}\n`;
}

describe('relational_db from PostgreSQL', () => {
  const schema = `quarry_test_${suffix}`;
  const url = 'postgresql://postgres:not-the-password-9x@127.0.0.1:5432/test';
  let admin: pg.Client;
  let quarry: TestQuarry;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(`CREATE TABLE ${schema}.orders (
      id bigint PRIMARY KEY, customer text, amount numeric(10,2), paid boolean, created_at timestamptz, updated_at timestamp,
      tags text[], meta jsonb, note text)`);
    await admin.query(`INSERT INTO ${schema}.orders
      SELECT i, 'customer ' || (i % 1000), (i % 10000) / 100.0, i % 2 = 0, timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second',
        timestamp '2026-01-01' + (i % 100) * interval '1 minute', ARRAY['a', 'b' || (i % 3)], jsonb_build_object('n', i, 'deep', jsonb_build_object('x', i % 5)),
        CASE WHEN i % 3 = 0 THEN NULL WHEN i % 3 = 1 THEN '' ELSE 'note, "quoted"' END
      FROM generate_series(1, ${String(ROWS)}) i`);
    await admin.query(`CREATE TABLE ${schema}.audit (at timestamp, what text)`);
    await admin.query(`INSERT INTO ${schema}.audit VALUES ('2026-01-01 10:00', 'one'), ('2026-01-02 10:00', 'two')`);
    await admin.query(`CREATE TABLE ${schema}.evolving (id integer PRIMARY KEY, qty integer, gone text, changed_at timestamp)`);
    await admin.query(`INSERT INTO ${schema}.evolving VALUES (1, 1, 'g1', '2026-01-01'), (2, 2, 'g2', '2026-01-01'), (3, 3, 'g3', '2026-01-01')`);
    await admin.query(`CREATE TABLE ${schema}.kinds (small smallint, whole integer, ratio real, wide double precision, free numeric, huge numeric(50,2),
      day date, at_time time, id uuid, flags boolean[], doc json, label varchar(20))`);
    await admin.query(`INSERT INTO ${schema}.kinds VALUES (-3, 70000, 1.5, 2.25, 3.125, 12345678901234567890123456789012345678901.25,
      '2026-02-28', '13:45:10', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{t,f}', '{"a": [1, 2]}', 'it''s')`);
    // A row read while the switch is on fails the whole read (division by zero), unless a filter keeps PostgreSQL from computing it.
    await admin.query(`CREATE TABLE ${schema}.switch (poisoned boolean); INSERT INTO ${schema}.switch VALUES (false)`);
    await admin.query(`CREATE TABLE ${schema}.event_rows (id integer, changed_at timestamp)`);
    await admin.query(`INSERT INTO ${schema}.event_rows VALUES (1, '2026-01-01'), (2, '2026-01-02')`);
    await admin.query(`CREATE VIEW ${schema}.events AS SELECT e.id, e.changed_at, 1 / CASE WHEN s.poisoned AND e.changed_at < '2026-03-01' THEN 0 ELSE 1 END AS one
      FROM ${schema}.event_rows e CROSS JOIN ${schema}.switch s`);
    quarry = await startQuarry({
      env: { PG_URL: url },
      sourcesYaml: [
        sourcesYaml('shop_db', 'PG_URL', `      schema: ${schema}\n      table_names: [orders, audit]\n      incremental: { orders: updated_at, audit: at }`).trimEnd(),
        `  - name: evolving_db\n    type: relational_db\n    generic_config:\n      credentials_env: PG_URL\n      schema: ${schema}\n      table_names: [evolving, kinds]\n      incremental: { evolving: changed_at }`,
        `  - name: pushdown_db\n    type: relational_db\n    generic_config:\n      credentials_env: PG_URL\n      schema: ${schema}\n      table_names: [events]\n      incremental: { events: changed_at }`,
        '  - name: no_url', '    type: relational_db', '    generic_config: { credentials_env: NOT_SET_URL }',
        '  - name: refused', '    type: relational_db', '    generic_config: { credentials_env: REFUSED_URL }', '',
      ].join('\n'),
    });
  }, 120_000);

  afterAll(async () => {
    await quarry.close();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  });

  it('loads a million rows with the declared types, NULL and empty text kept apart', async () => {
    expect(await syncAndWait(quarry, 'shop_db')).toMatchObject({ type: 'sync_completed' });
    expect(await quarry.query('SELECT count(*) AS n, sum(id) AS ids FROM raw_shop_db.orders')).toEqual([{ n: ROWS, ids: ROWS * (ROWS + 1) / 2 }]);
    const types = await quarry.query("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'raw_shop_db' AND table_name = 'orders' ORDER BY ordinal_position");
    expect(Object.fromEntries(types.map((row) => [row.column_name, row.data_type]))).toMatchObject({
      id: 'BIGINT', customer: 'VARCHAR', amount: 'DECIMAL(10,2)', paid: 'BOOLEAN', created_at: 'TIMESTAMP WITH TIME ZONE',
      updated_at: 'TIMESTAMP', tags: 'VARCHAR', meta: 'JSON', note: 'VARCHAR',
    });
    const sample = await quarry.query(`SELECT amount::VARCHAR AS amount, paid, created_at::VARCHAR AS created, tags, meta->>'$.deep.x' AS x,
      note IS NULL AS null_note, note FROM raw_shop_db.orders WHERE id IN (1, 2, 3) ORDER BY id`);
    expect(sample).toEqual([
      { amount: '0.01', paid: false, created: '2026-01-01 00:00:01+00', tags: '{a,b1}', x: '1', null_note: false, note: '' },
      { amount: '0.02', paid: true, created: '2026-01-01 00:00:02+00', tags: '{a,b2}', x: '2', null_note: false, note: 'note, "quoted"' },
      { amount: '0.03', paid: false, created: '2026-01-01 00:00:03+00', tags: '{a,b0}', x: '3', null_note: true, note: null },
    ]);
    expect(await quarry.query('SELECT count(*) AS n FROM raw_shop_db.audit')).toEqual([{ n: 2 }]);
  });

  it('re-syncs only rows past the cursor, merging on the primary key and appending to a table without one', async () => {
    await admin.query(`UPDATE ${schema}.orders SET customer = 'changed', updated_at = '2026-06-01' WHERE id IN (5, 6)`);
    await admin.query(`INSERT INTO ${schema}.orders (id, customer, updated_at) VALUES (${String(ROWS + 1)}, 'new', '2026-06-02')`);
    await admin.query(`INSERT INTO ${schema}.audit VALUES ('2026-02-01 10:00', 'three')`);
    const end = await syncAndWait(quarry, 'shop_db');
    expect(end).toMatchObject({ type: 'sync_completed' });
    expect(await logMessages(quarry, 'shop_db', 'INFO')).toContain('Exported the rows of orders with updated_at after 2026-01-01 01:39:00');
    expect(await quarry.query("SELECT count(*) AS n, count(*) FILTER (WHERE customer = 'changed') AS changed, count(*) FILTER (WHERE customer = 'new') AS added FROM raw_shop_db.orders"))
      .toEqual([{ n: ROWS + 1, changed: 2, added: 1 }]);
    expect(await quarry.query('SELECT what FROM raw_shop_db.audit ORDER BY "at"')).toEqual([{ what: 'one' }, { what: 'two' }, { what: 'three' }]);
    expect(await quarry.ctx.store.sourceState.forSource('shop_db')).toEqual(new Map([['orders', '2026-06-02 00:00:00'], ['audit', '2026-02-01 10:00:00']]));

    const again = await syncAndWait(quarry, 'shop_db');
    expect(again).toMatchObject({ type: 'sync_completed', rows: 0 });
    expect(await logMessages(quarry, 'shop_db', 'INFO')).toContain('No new rows in orders');
  });

  it('loads every column type with its declared DuckDB type', async () => {
    expect(await syncAndWait(quarry, 'evolving_db')).toMatchObject({ type: 'sync_completed' });
    const types = await quarry.query("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'raw_evolving_db' AND table_name = 'kinds'");
    expect(Object.fromEntries(types.map((row) => [row.column_name, row.data_type]))).toMatchObject({
      small: 'SMALLINT', whole: 'INTEGER', ratio: 'FLOAT', wide: 'DOUBLE', free: 'DOUBLE', huge: 'DOUBLE', day: 'DATE', at_time: 'TIME',
      id: 'UUID', flags: 'VARCHAR', doc: 'JSON', label: 'VARCHAR',
    });
    expect(await quarry.query(`SELECT small, whole, ratio, wide, free, day::VARCHAR AS day, at_time::VARCHAR AS at_time, id::VARCHAR AS id, flags,
      doc->>'$.a[1]' AS second, label FROM raw_evolving_db.kinds`)).toEqual([{
      small: -3, whole: 70000, ratio: 1.5, wide: 2.25, free: 3.125, day: '2026-02-28', at_time: '13:45:10',
      id: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', flags: '{t,f}', second: '2', label: "it's",
    }]);
    // A table replaced whole keeps the export as its data file, recorded where it was moved, not rewritten.
    expect(await quarry.query(`SELECT f.path FROM __ducklake_metadata_warehouse.ducklake_data_file f
      JOIN __ducklake_metadata_warehouse.ducklake_table t USING (table_id) WHERE t.table_name = 'kinds' AND t.end_snapshot IS NULL`))
      .toEqual([{ path: expect.stringMatching(/^quarry-[0-9a-f-]{36}\.parquet$/) }]);
    expect(await quarry.query('SELECT count(_quarry_loaded_at) AS n FROM raw_evolving_db.kinds')).toEqual([{ n: 1 }]);
  });

  it('loads a table altered between syncs (a column added, one dropped, one retyped), merging the rows past the cursor', async () => {
    await admin.query(`ALTER TABLE ${schema}.evolving ADD COLUMN added text, DROP COLUMN gone, ALTER COLUMN qty TYPE text USING qty || ' units'`);
    await admin.query(`UPDATE ${schema}.evolving SET changed_at = '2026-05-01', added = 'new' WHERE id = 2`);
    await admin.query(`INSERT INTO ${schema}.evolving (id, qty, changed_at, added) VALUES (4, 'four', '2026-05-02', 'x')`);
    expect(await syncAndWait(quarry, 'evolving_db')).toMatchObject({ type: 'sync_completed' });
    expect(await quarry.query('SELECT id, qty, gone, added FROM raw_evolving_db.evolving ORDER BY id')).toEqual([
      { id: 1, qty: '1', gone: 'g1', added: null },
      { id: 2, qty: '2 units', gone: null, added: 'new' },
      { id: 3, qty: '3', gone: 'g3', added: null },
      { id: 4, qty: 'four', gone: null, added: 'x' },
    ]);
    expect(await logMessages(quarry, 'evolving_db', 'WARNING')).toEqual(expect.arrayContaining([expect.stringMatching(/^Schema change in evolving: .*qty/), expect.stringMatching(/^Schema change in evolving: .*added/)]));
    expect((await quarry.ctx.store.sourceState.forSource('evolving_db')).get('evolving')).toBe('2026-05-02 00:00:00');
  });

  it('pushes the cursor filter into PostgreSQL: rows before the cursor are never read', async () => {
    expect(await syncAndWait(quarry, 'pushdown_db')).toMatchObject({ type: 'sync_completed', rows: 2 });
    await admin.query(`UPDATE ${schema}.switch SET poisoned = true`);
    await admin.query(`INSERT INTO ${schema}.event_rows VALUES (3, '2026-04-01')`);
    expect(await syncAndWait(quarry, 'pushdown_db')).toMatchObject({ type: 'sync_completed', rows: 1 });
    expect(await quarry.query('SELECT id FROM raw_pushdown_db.events ORDER BY id')).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(await syncAndWait(quarry, 'pushdown_db', true)).toMatchObject({ type: 'sync_failed', error: expect.stringMatching(/division by zero/) });
  });

  it('a missing variable, a refused connection, an unknown user and a TLS option the server refuses fail with one line naming the variable or the host, never the password', async () => {
    const missing = await syncAndWait(quarry, 'no_url');
    expect(missing.type === 'sync_failed' ? missing.error : '').toMatch(/^The environment variable NOT_SET_URL is not set/);
    await quarry.close();
    quarry = await startQuarry({
      env: {
        REFUSED_URL: 'postgresql://postgres:s3cret-pw@127.0.0.1:1/test', DENIED_URL: 'postgresql://nobody_here:s3cret-pw@127.0.0.1:5432/test',
        TLS_URL: 'postgresql://postgres:s3cret-pw@127.0.0.1:5432/test?sslmode=require',
      },
      sourcesYaml: [sourcesYaml('refused', 'REFUSED_URL', ''), sourcesYaml('denied', 'DENIED_URL', ''), sourcesYaml('tls', 'TLS_URL', '')]
        .map((yaml, index) => (index === 0 ? yaml : yaml.replace(/^sources:\n/, ''))).join(''),
    });
    const refused = await syncAndWait(quarry, 'refused');
    expect(refused.type === 'sync_failed' ? refused.error : '').toBe('Could not connect to the database at 127.0.0.1:1: connection refused');
    const denied = await syncAndWait(quarry, 'denied');
    expect(denied.type === 'sync_failed' ? denied.error : '').toMatch(/^Could not connect to the database at 127\.0\.0\.1:5432: connection to server .*role "nobody_here" does not exist$/);
    const tls = await syncAndWait(quarry, 'tls'); // the URL's options reach the connection: this server has no TLS
    expect(tls.type === 'sync_failed' ? tls.error : '').toMatch(/^Could not connect to the database at 127\.0\.0\.1:5432: .*server does not support SSL, but SSL was required/);
    expect(JSON.stringify(await quarry.ctx.store.logs.latest(100))).not.toContain('s3cret-pw');
  });
});

describe('relational_db when the service stops mid-export', () => {
  it('abandons the export at once and records the job interrupted', async () => {
    const url = 'postgresql://postgres@127.0.0.1:5432/test';
    const view = `quarry_slow_${suffix}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // pg_sleep in a view stands for a table too large to copy before the stop.
    await admin.query(`CREATE VIEW public.${view} AS SELECT i, pg_sleep(0.01)::text AS nap FROM generate_series(1, 100000) i`);
    const quarry = await startQuarry({ env: { PG_URL: url }, sourcesYaml: sourcesYaml('slow', 'PG_URL', `      table_names: [${view}]`) });
    try {
      const started = quarry.nextEvent('sync_started');
      await quarry.ctx.jobs.startSync('slow', { fullRefresh: false, requestedBy: 'test' });
      await started;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const stopping = Date.now();
      await quarry.ctx.jobs.close(0);
      expect(Date.now() - stopping).toBeLessThan(5000);
      expect((await quarry.ctx.store.jobs.latest('sync', 'slow'))?.status).toBe('interrupted');
    } finally {
      await quarry.close();
      await admin.query(`DROP VIEW public.${view}`);
      await admin.end();
    }
  }, 60_000);
});

describe('relational_db from MariaDB', () => {
  const database = `quarry_test_${suffix}`;
  let admin: mysql.Connection;
  let quarry: TestQuarry;

  beforeAll(async () => {
    admin = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', database: 'test', multipleStatements: true });
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.query(`CREATE TABLE ${database}.customers (
      id BIGINT UNSIGNED PRIMARY KEY, name VARCHAR(100), balance DECIMAL(12,2), active TINYINT(1), tier TINYINT(1), born DATE, seen_at DATETIME, note TEXT, prefs JSON)`);
    await admin.query(`INSERT INTO ${database}.customers
      SELECT seq, CONCAT('name ', seq), seq / 100, seq % 2, seq % 3, DATE '2000-01-01' + INTERVAL (seq % 365) DAY, TIMESTAMP '2026-01-01 00:00:00' + INTERVAL (seq % 100) MINUTE,
        CASE WHEN seq % 3 = 0 THEN NULL WHEN seq % 3 = 1 THEN '' ELSE 'a,"b"' END, JSON_OBJECT('level', seq % 4, 'tags', JSON_ARRAY('x'))
      FROM seq_1_to_${String(ROWS)}`);
    await admin.query(`CREATE TABLE ${database}.evolving (id INT PRIMARY KEY, qty INT, gone VARCHAR(10), changed_at DATETIME)`);
    await admin.query(`INSERT INTO ${database}.evolving VALUES (1, 1, 'g1', '2026-01-01'), (2, 2, 'g2', '2026-01-01')`);
    quarry = await startQuarry({
      env: { MY_URL: `mysql://root@127.0.0.1:3306/${database}`, MY_DENIED_URL: `mysql://nobody_here:pw-s3cret-9@127.0.0.1:3306/${database}` },
      sourcesYaml: `${sourcesYaml('crm_db', 'MY_URL', '      incremental: { customers: seen_at, evolving: changed_at }')}${sourcesYaml('crm_denied', 'MY_DENIED_URL', '').replace(/^sources:\n/, '')}`,
    });
  }, 120_000);

  afterAll(async () => {
    await quarry.close();
    await admin.query(`DROP DATABASE ${database}`);
    await admin.end();
  });

  it('loads a million rows with the declared types and merges rows past the cursor', async () => {
    expect(await syncAndWait(quarry, 'crm_db')).toMatchObject({ type: 'sync_completed' });
    expect(await quarry.query('SELECT count(*) AS n, sum(balance)::DOUBLE AS total FROM raw_crm_db.customers')).toEqual([{ n: ROWS, total: (ROWS * (ROWS + 1)) / 2 / 100 }]);
    const sample = await quarry.query(`SELECT id, balance::VARCHAR AS balance, active, born::VARCHAR AS born, note, prefs->>'$.level' AS level
      FROM raw_crm_db.customers WHERE id IN (1, 2, 3) ORDER BY id`);
    expect(sample).toEqual([
      { id: 1, balance: '0.01', active: 1, born: '2000-01-02', note: '', level: '1' },
      { id: 2, balance: '0.02', active: 0, born: '2000-01-03', note: 'a,"b"', level: '2' },
      { id: 3, balance: '0.03', active: 1, born: '2000-01-04', note: null, level: '3' },
    ]);
    expect(await quarry.query('SELECT max(tier) AS top FROM raw_crm_db.customers')).toEqual([{ top: 2 }]); // a "boolean" holding 2 loads
    const types = await quarry.query("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'raw_crm_db' AND table_name = 'customers'");
    expect(Object.fromEntries(types.map((row) => [row.column_name, row.data_type]))).toMatchObject({ id: 'UBIGINT', balance: 'DECIMAL(12,2)', active: 'TINYINT', tier: 'TINYINT', born: 'DATE', seen_at: 'TIMESTAMP' });
    await admin.query(`UPDATE ${database}.customers SET name = 'changed', seen_at = '2026-03-01' WHERE id = 10`);
    await admin.query(`INSERT INTO ${database}.customers (id, name, seen_at) VALUES (${String(ROWS + 1)}, 'new', '2026-03-02')`);
    expect(await syncAndWait(quarry, 'crm_db')).toMatchObject({ type: 'sync_completed' });
    expect(await quarry.query("SELECT count(*) AS n, count(*) FILTER (WHERE name = 'changed') AS changed, count(*) FILTER (WHERE name = 'new') AS added FROM raw_crm_db.customers"))
      .toEqual([{ n: ROWS + 1, changed: 1, added: 1 }]);
    expect((await quarry.ctx.store.sourceState.forSource('crm_db')).get('customers')).toBe('2026-03-02 00:00:00');
  });

  it('loads a table altered between syncs (a column added, one dropped, one retyped)', async () => {
    await admin.query(`ALTER TABLE ${database}.evolving ADD COLUMN added VARCHAR(10), DROP COLUMN gone, MODIFY qty VARCHAR(20)`);
    await admin.query(`UPDATE ${database}.evolving SET qty = 'two', added = 'new', changed_at = '2026-05-01' WHERE id = 2`);
    expect(await syncAndWait(quarry, 'crm_db')).toMatchObject({ type: 'sync_completed' });
    expect(await quarry.query('SELECT id, qty, gone, added FROM raw_crm_db.evolving ORDER BY id')).toEqual([
      { id: 1, qty: '1', gone: 'g1', added: null },
      { id: 2, qty: 'two', gone: null, added: 'new' },
    ]);
  });

  it('an unknown user fails with one line naming the host, never the password', async () => {
    const denied = await syncAndWait(quarry, 'crm_denied');
    expect(denied.type === 'sync_failed' ? denied.error : '').toMatch(/^Could not connect to the database at 127\.0\.0\.1:3306: Access denied for user 'nobody_here'/);
    expect(JSON.stringify(await quarry.ctx.store.logs.latest(100))).not.toContain('pw-s3cret-9');
  });
});
