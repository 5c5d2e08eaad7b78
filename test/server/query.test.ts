import { writeFileSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLog } from '../support/captured-log.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const SOURCES = `sources:
  - name: orders
    type: local_files
    local_files:
      directory: data/orders
      file_pattern: "*.csv"
`;

// Slow on any machine: a cross join of 10^11 rows; the limit interrupts it long before it ends.
const ENDLESS = 'SELECT sum(a.range * b.range) FROM range(1000000) a, range(100000) b';

describe('POST /api/query', () => {
  let quarry: TestQuarry;
  let dataDir: string;
  const log = captureLog();

  beforeAll(async () => {
    quarry = await startQuarry({ sourcesYaml: SOURCES, projectConfig: { limits: { query_seconds: 2, query_rows: 50 } }, log: log.log });
    dataDir = path.join(quarry.dir, 'data', 'orders');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path.join(dataDir, 'a.csv'), 'id,amount,note\n1,10,"a, quoted"\n2,20,\n3,30,x\n');
    await syncAndWait(quarry, 'orders');
  }, 60_000);
  afterAll(async () => {
    await quarry.close();
  });

  const query = (sql: string, options: { limit?: number; as?: 'viewer' | 'editor' | 'admin' | 'anonymous'; accept?: string } = {}) =>
    quarry.request('POST', '/api/query', {
      as: options.as ?? 'viewer', body: { sql, ...(options.limit === undefined ? {} : { limit: options.limit }) },
      headers: options.accept === undefined ? {} : { accept: options.accept },
    });

  it('answers a viewer with columns, rows, counts and the time taken, and records who asked in the audit log', async () => {
    const response = await query('SELECT id, amount, note FROM raw_orders.orders ORDER BY id');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      columns: [{ name: 'id', type: 'BIGINT' }, { name: 'amount', type: 'BIGINT' }, { name: 'note', type: 'VARCHAR' }],
      rows: [['1', '10', 'a, quoted'], ['2', '20', null], ['3', '30', 'x']],
      row_count: 3, truncated: false, elapsed_ms: expect.any(Number),
    });
    const audited = (await quarry.ctx.store.audit.latest(1))[0];
    expect(audited).toEqual(expect.objectContaining({
      event: 'query', actorEmail: 'viewer@test.local', subject: 'SELECT id, amount, note FROM raw_orders.orders ORDER BY id', detail: expect.stringMatching(/^succeeded in \d+ ms$/),
    }));
  });

  it('runs WITH, SHOW, DESCRIBE and EXPLAIN', async () => {
    for (const sql of ['WITH t AS (SELECT 1 AS x) SELECT x FROM t', 'SHOW TABLES', 'DESCRIBE raw_orders.orders', 'EXPLAIN SELECT * FROM raw_orders.orders', 'FROM raw_orders.orders']) {
      const response = await query(sql);
      expect({ sql, status: response.status, body: response.json }).toEqual({ sql, status: 200, body: expect.objectContaining({ row_count: expect.any(Number) }) });
    }
  });

  it('caps the rows at the request limit and at limits.query_rows, saying the result was cut', async () => {
    expect((await query('SELECT * FROM range(10)', { limit: 4 })).json).toEqual(expect.objectContaining({ row_count: 4, truncated: true }));
    expect((await query('SELECT * FROM range(10)', { limit: 10 })).json).toEqual(expect.objectContaining({ row_count: 10, truncated: false }));
    expect((await query('SELECT * FROM range(5000)', { limit: 5000 })).json).toEqual(expect.objectContaining({ row_count: 50, truncated: true }));
  });

  it.each([
    ['DDL', 'CREATE TABLE raw_orders.intruder AS SELECT 1 AS x'],
    ['DROP', 'DROP TABLE raw_orders.orders'],
    ['DML', 'INSERT INTO raw_orders.orders (id) VALUES (9)'],
    ['UPDATE', 'UPDATE raw_orders.orders SET amount = 0'],
    ['DELETE', 'DELETE FROM raw_orders.orders'],
    ['COPY', "COPY raw_orders.orders TO '/tmp/quarry-leak.csv'"],
    ['COPY FROM', "COPY raw_orders.orders FROM '/etc/passwd'"],
    ['EXPORT', "EXPORT DATABASE '/tmp/quarry-leak'"],
    ['IMPORT', "IMPORT DATABASE '/tmp/quarry-leak'"],
    ['ATTACH', "ATTACH '/tmp/other.duckdb' AS other"],
    ['ATTACH sqlite', "ATTACH 'sqlite:/tmp/other.sqlite' AS other"],
    ['DETACH', 'DETACH warehouse'],
    ['USE', 'USE memory'],
    ['INSTALL', 'INSTALL httpfs'],
    ['LOAD', 'LOAD sqlite_scanner'],
    ['CALL', 'CALL pragma_version()'],
    ['PRAGMA', 'PRAGMA show_tables'],
    ['PRAGMA setting', "PRAGMA memory_limit='100GB'"],
    ['SET', 'SET enable_external_access = true'],
    ['RESET', 'RESET memory_limit'],
    ['CHECKPOINT', 'CHECKPOINT'],
    ['multiple statements', 'SELECT 1; SELECT 2'],
    ['a write after a query', 'SELECT 1; DROP TABLE raw_orders.orders'],
    ['read_csv', "SELECT * FROM read_csv('/etc/passwd')"],
    ['read_csv quoted and qualified', `SELECT * FROM main."READ_CSV"('/etc/passwd')`],
    ['read_text', "SELECT * FROM read_text('/etc/passwd')"],
    ['read_text in a subquery', "SELECT (SELECT content FROM read_text('/etc/passwd')) AS x"],
    ['read_blob', "SELECT * FROM read_blob('/etc/passwd')"],
    ['read_parquet', "SELECT * FROM read_parquet('/tmp/x.parquet')"],
    ['a file as a table', "SELECT * FROM '/etc/passwd'"],
    ['glob', "SELECT * FROM glob('/etc/*')"],
    ['getenv', "SELECT getenv('HOME')"],
    ['query()', "SELECT * FROM query('SELECT 1')"],
    ['query_table()', "SELECT * FROM query_table('raw_orders.orders')"],
    ['json_execute_serialized_sql', "SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT 1'))"],
    ['sqlite_scan', "SELECT * FROM sqlite_scan('/tmp/x.sqlite', 'users')"],
    ['sqlite_attach', "SELECT * FROM sqlite_attach('/tmp/x.sqlite')"],
    ['postgres_scan', "SELECT * FROM postgres_scan('host=127.0.0.1 user=postgres dbname=test', 'public', 'users')"],
    ['postgres_query', "SELECT * FROM postgres_query('db', 'SELECT 1')"],
    ['EXPLAIN of a write', 'EXPLAIN DELETE FROM raw_orders.orders'],
    ['EXPLAIN ANALYZE of a file read', "EXPLAIN ANALYZE SELECT * FROM read_text('/etc/passwd')"],
  ])('refuses %s with query_not_allowed, naming why', async (_name, sql) => {
    const response = await query(sql, { as: 'admin' });
    expect({ status: response.status, code: response.json?.code, detail: response.json?.detail }).toEqual({
      status: 400, code: 'query_not_allowed', detail: expect.stringMatching(/allowed/),
    });
  });

  it('leaves the warehouse as it was after every refusal', async () => {
    expect((await query('SELECT count(*) AS n FROM raw_orders.orders')).json.rows).toEqual([['3']]);
  });

  it("reports a SQL error as query_failed with DuckDB's message", async () => {
    const unknownTable = await query('SELECT * FROM raw_orders.nothing_here');
    expect(unknownTable.status).toBe(400);
    expect(unknownTable.json).toEqual({ code: 'query_failed', detail: expect.stringContaining('nothing_here') });
    const syntax = await query('SELEC 1');
    expect(syntax.json).toEqual({ code: 'query_failed', detail: expect.stringContaining('syntax error') });
  });

  it('refuses a query of only comments, and says how to write a PIVOT as one statement', async () => {
    for (const sql of ['-- nothing here', '/* nor here */ ;']) {
      expect((await query(sql)).json).toEqual({ code: 'query_not_allowed', detail: 'The query is empty: it has only comments or semicolons' });
    }
    const pivot = await query('PIVOT (SELECT note, amount FROM raw_orders.orders) ON note USING sum(amount)');
    expect(pivot.json).toEqual({ code: 'query_not_allowed', detail: expect.stringContaining("name its values (ON column IN ('a', 'b'))") });
    const named = await query("PIVOT (SELECT note, amount FROM raw_orders.orders) ON note IN ('x') USING sum(amount)");
    expect(named.json.rows).toEqual([['30']]);
  });

  it('interrupts a long cross join at limits.query_seconds and keeps answering', async () => {
    const slow = query(ENDLESS);
    const meanwhile = await query('SELECT 42 AS answer');
    expect(meanwhile.json.rows).toEqual([[42]]);
    const response = await slow;
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ code: 'query_timeout', detail: 'The query ran longer than 2 seconds and was stopped' });
    expect((await query('SELECT 1 AS one')).json.rows).toEqual([[1]]);
  }, 60_000);

  it('stops the query of a caller that goes away (a closed tab), which is no error of the service', async () => {
    const cookie = await quarry.login('viewer');
    const caller = new AbortController();
    const asked = fetch(`${quarry.url}/api/query`, {
      method: 'POST', signal: caller.signal,
      headers: { cookie, 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest' }, body: JSON.stringify({ sql: ENDLESS }),
    }).catch(() => 'gone');
    await new Promise((resolve) => setTimeout(resolve, 300));
    caller.abort();
    expect(await asked).toBe('gone');
    const ended = () => log.records().filter((record) => record.url === '/api/query' && record.msg.startsWith('request'));
    await expect.poll(() => ended().length, { timeout: 5000 }).toBeGreaterThan(0);
    expect(log.records().filter((record) => record.level >= 50)).toEqual([]);
  });

  it('streams a result as CSV when asked with Accept: text/csv', async () => {
    const response = await query('SELECT id, note FROM raw_orders.orders ORDER BY id', { accept: 'text/csv' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.text).toBe('id,note\n1,"a, quoted"\n2,\n3,x\n');
    const refused = await query("SELECT * FROM read_text('/etc/passwd')", { accept: 'text/csv' });
    expect({ status: refused.status, code: refused.json?.code }).toEqual({ status: 400, code: 'query_not_allowed' });
  });

  it('cuts off a download whose client stops reading at limits.query_seconds, so it cannot hold a reader from other queries', async () => {
    const cookie = await quarry.login('viewer');
    // 50 MB each: far more than the socket buffers hold, so an unread download stalls.
    const body = JSON.stringify({ sql: "SELECT range AS i, repeat('x', 1000000) AS pad FROM range(50)" });
    // As many downloads as there are readers, each answered and then not read.
    const stalled = await Promise.all(Array.from({ length: 4 }, () => new Promise<http.IncomingMessage>((resolve, reject) => {
      const request = http.request(`${quarry.url}/api/query`, {
        method: 'POST',
        headers: { cookie, 'x-requested-with': 'XMLHttpRequest', 'content-type': 'application/json', accept: 'text/csv', 'content-length': Buffer.byteLength(body) },
      }, (response) => {
        response.pause();
        resolve(response);
      });
      request.once('error', reject);
      request.end(body);
    })));
    // Answered once the 2-second limit has cut the downloads off; before, never.
    expect((await query('SELECT 42 AS answer')).json.rows).toEqual([[42]]);
    const ends = await Promise.all(stalled.map((response) => new Promise<{ status: number | undefined; complete: boolean }>((resolve) => {
      response.once('error', () => undefined);
      response.socket.once('close', () => { resolve({ status: response.statusCode, complete: response.complete }); });
      response.resume();
    })));
    expect(ends).toEqual(Array.from({ length: 4 }, () => ({ status: 200, complete: false })));
  }, 60_000);

  it('refuses anonymous callers, a cookie without CSRF proof, and a body that is not a query', async () => {
    expect((await query('SELECT 1', { as: 'anonymous' })).status).toBe(401);
    const cookie = await quarry.login('viewer');
    const noCsrf = await quarry.request('POST', '/api/query', { cookie, body: { sql: 'SELECT 1' } });
    expect({ status: noCsrf.status, code: noCsrf.json.code }).toEqual({ status: 403, code: 'csrf_failed' });
    for (const body of [{}, { sql: '' }, { sql: 'SELECT 1', limit: 0 }, { sql: 42 }]) {
      const response = await quarry.request('POST', '/api/query', { as: 'viewer', body });
      expect({ body, status: response.status, code: response.json.code }).toEqual({ body, status: 400, code: 'invalid_request' });
    }
  });
});

describe('a result too large for one JSON answer', () => {
  let quarry: TestQuarry;

  beforeAll(async () => {
    // 80 MB of CSV must stream within the query's time on a busy machine too.
    quarry = await startQuarry({ projectConfig: { limits: { query_seconds: 120 } } });
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('answers a result too large for one JSON answer with query_failed, and streams it whole as CSV', async () => {
    const sql = "SELECT repeat('x', 40000000) AS big FROM range(2)";
    const json = await quarry.request('POST', '/api/query', { as: 'viewer', body: { sql } });
    expect({ status: json.status, body: json.json }).toEqual({ status: 400, body: { code: 'query_failed', detail: expect.stringMatching(/^The result's first row is 39 MB as JSON/) } });
    const csv = await fetch(`${quarry.url}/api/query`, {
      method: 'POST', headers: { cookie: await quarry.login('viewer'), 'x-requested-with': 'XMLHttpRequest', 'content-type': 'application/json', accept: 'text/csv' },
      body: JSON.stringify({ sql }),
    });
    let bytes = 0;
    for await (const part of csv.body!) bytes += (part as Uint8Array).length;
    expect({ status: csv.status, bytes }).toEqual({ status: 200, bytes: 'big\n'.length + 2 * (40_000_000 + 1) });
  }, 180_000);
});

describe('a query during a sync', () => {
  let quarry: TestQuarry;

  beforeAll(async () => {
    quarry = await startQuarry({ sourcesYaml: SOURCES });
    const dataDir = path.join(quarry.dir, 'data', 'orders');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path.join(dataDir, 'a.csv'), 'id,amount\n1,10\n2,20\n3,30\n');
    await syncAndWait(quarry, 'orders');
    writeFileSync(path.join(dataDir, 'b.csv'), 'id,amount\n4,40\n');
  }, 60_000);
  afterAll(async () => {
    await quarry.close();
  });

  it('reads the previous snapshot to its end and does not delay the sync', async () => {
    const cookie = await quarry.login('viewer');
    // 10,000 rows of 1 kB: far more than the socket buffers, so the download stalls while unread.
    const sql = "SELECT (SELECT count(*) FROM raw_orders.orders) AS orders, range AS i, repeat('x', 1000) AS pad FROM range(10000)";
    const response = await fetch(`${quarry.url}/api/query`, {
      method: 'POST', headers: { cookie, 'x-requested-with': 'XMLHttpRequest', 'content-type': 'application/json', accept: 'text/csv' },
      body: JSON.stringify({ sql }),
    });
    expect(response.status).toBe(200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = (await reader.read()).value ?? '';

    await syncAndWait(quarry, 'orders');
    expect((await quarry.request('POST', '/api/query', { as: 'viewer', body: { sql: 'SELECT count(*) AS n FROM raw_orders.orders' } })).json.rows).toEqual([['4']]);

    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += chunk.value;
    const rows = text.trimEnd().split('\n').slice(1);
    expect(rows.length).toBe(10_000);
    expect(new Set(rows.map((row) => row.split(',')[0]))).toEqual(new Set(['3']));
  }, 60_000);
});
