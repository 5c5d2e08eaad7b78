import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const PIPELINE_MODULE = `
import os
import dlt

@dlt.source
def shop(api_key, pages=2):
    if api_key != "k-123-secret":
        raise ValueError("wrong key " + api_key)

    @dlt.resource(primary_key="id")
    def customers():
        for page in range(pages):
            yield [{"id": page * 10 + n, "name": f"c{page * 10 + n}", "orders": [{"sku": "a", "qty": n}, {"sku": "b", "qty": 1}],
                    "address": {"city": "Oslo", "zip": "0150"}} for n in range(10)]

    @dlt.resource
    def settings():
        yield {"currency": "NOK", "key_length": len(api_key), "sees_other_credentials": os.environ.get("PG_URL") is not None}

    return customers, settings

@dlt.source
def broken(token):
    raise RuntimeError("upstream said no to " + token)
`;

const schema = `quarry_dlt_${randomBytes(4).toString('hex')}`;
const pgUrl = 'postgresql://postgres@127.0.0.1:5432/test';

describe('native_pipeline sources', () => {
  let quarry: TestQuarry;
  let admin: pg.Client;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.products (id int PRIMARY KEY, title text, price numeric(8,2));
      INSERT INTO ${schema}.products SELECT i, 'product ' || i, i * 1.5 FROM generate_series(1, 500) i;`);
    quarry = await startQuarry({
      env: { SHOP_KEY: 'k-123-secret', PG_URL: pgUrl, BROKEN_TOKEN: 'tok-very-secret' },
      sourcesYaml: [
        'sources:',
        '  - name: shop', '    type: native_pipeline', '    native_pipeline:', '      source_module: shop_source', '      source_function: shop',
        '      function_kwargs: { api_key: "env:SHOP_KEY", pages: 3 }',
        '  - name: catalog', '    type: native_pipeline', '    native_pipeline:', '      source_module: dlt.sources.sql_database',
        '      source_function: sql_database', `      function_kwargs: { credentials: "env:PG_URL", schema: ${schema}, table_names: [products] }`,
        '  - name: broken', '    type: native_pipeline', '    native_pipeline:', '      source_module: shop_source', '      source_function: broken',
        '      function_kwargs: { token: "env:BROKEN_TOKEN" }',
        '  - name: missing', '    type: native_pipeline', '    native_pipeline:', '      source_module: no_such_module', '      source_function: run',
        '',
      ].join('\n'),
    });
    await mkdir(path.join(quarry.dir, 'pipelines'), { recursive: true });
    await writeFile(path.join(quarry.dir, 'pipelines', 'shop_source.py'), PIPELINE_MODULE);
  });

  afterAll(async () => {
    await quarry.close();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  });

  it('runs a dlt source from the project with env: arguments resolved, and loads its tables and child tables', async () => {
    expect(await syncAndWait(quarry, 'shop')).toMatchObject({ type: 'sync_completed', rows: 91 }); // 30 customers, their 60 orders, 1 settings row
    expect(await quarry.query('SELECT count(*) AS n, max(name) AS last, min(address__city) AS city FROM raw_shop.customers'))
      .toEqual([{ n: 30, last: 'c9', city: 'Oslo' }]);
    expect(await quarry.query('SELECT count(*) AS n, sum(qty) AS qty FROM raw_shop.customers__orders')).toEqual([{ n: 60, qty: 165 }]);
    // The pipeline sees the variables its arguments name, not the project's other credentials.
    expect(await quarry.query('SELECT currency, key_length, sees_other_credentials FROM raw_shop.settings'))
      .toEqual([{ currency: 'NOK', key_length: 12, sees_other_credentials: false }]);
    // A second run replaces: nothing doubles.
    expect(await syncAndWait(quarry, 'shop')).toMatchObject({ type: 'sync_completed' });
    expect(await quarry.query('SELECT count(*) AS n FROM raw_shop.customers')).toEqual([{ n: 30 }]);
  });

  it("loads a PostgreSQL table through dlt's generic SQL loader", async () => {
    expect(await syncAndWait(quarry, 'catalog')).toMatchObject({ type: 'sync_completed', rows: 500 });
    expect(await quarry.query('SELECT count(*) AS n, sum(price)::DOUBLE AS total FROM raw_catalog.products')).toEqual([{ n: 500, total: 1.5 * 500 * 501 / 2 }]);
  });

  it('a failing source and a missing module fail with one line, the secret masked', async () => {
    const broken = await syncAndWait(quarry, 'broken');
    const error = broken.type === 'sync_failed' ? broken.error : '';
    expect(error).toMatch(/^The pipeline failed: .*upstream said no to \*\*\*/);
    expect(JSON.stringify(quarry.ctx.store.logs.latest(200))).not.toContain('tok-very-secret');
    const missing = await syncAndWait(quarry, 'missing');
    expect(missing.type === 'sync_failed' ? missing.error : '').toBe("Cannot import the module no_such_module: No module named 'no_such_module'");
  });
});
