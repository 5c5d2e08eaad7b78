import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonExecutable } from '../../src/python/index.ts';
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

// dlt's generic SQL loader, reached through a module of the project: installed packages are not run by name.
const SQL_LOADER_MODULE = 'from dlt.sources.sql_database import sql_database\n';

const ERP_ORDERS_MODULE = `
import dlt

@dlt.source
def orders():
    return dlt.resource([{"id": 1}, {"id": 2}], name="orders")
`;

// A module that would run if it were imported: each marks the folder it was given.
const MARKING_MODULE = `
import os, pathlib
pathlib.Path(os.environ.get("MARKER_DIR", "/nonexistent"), "imported").touch()
def load(**kwargs):
    raise RuntimeError("should never be called")
`;

const RUNNER = path.join(import.meta.dirname, '..', '..', 'src', 'sources', 'native', 'run_pipeline.py');

const schema = `quarry_dlt_${randomBytes(4).toString('hex')}`;

const pipelineSource = (name: string, module: string, sourceFunction: string, kwargs = '{}') => [
  `  - name: ${name}`, '    type: native_pipeline', '    native_pipeline:', `      source_module: ${module}`, `      source_function: ${sourceFunction}`,
  `      function_kwargs: ${kwargs}`,
];
const pgUrl = 'postgresql://postgres@127.0.0.1:5432/test';

describe('native_pipeline sources', () => {
  let quarry: TestQuarry;
  let admin: pg.Client;
  let outside: string;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.products (id int PRIMARY KEY, title text, price numeric(8,2));
      INSERT INTO ${schema}.products SELECT i, 'product ' || i, i * 1.5 FROM generate_series(1, 500) i;`);
    outside = mkdtempSync(path.join(tmpdir(), 'quarry-outside-'));
    writeFileSync(path.join(outside, 'elsewhere.py'), MARKING_MODULE);
    quarry = await startQuarry({
      env: { SHOP_KEY: 'k-123-secret', PG_URL: pgUrl, BROKEN_TOKEN: 'tok-very-secret', MARKER_DIR: outside },
      sourcesYaml: [
        'sources:',
        ...pipelineSource('shop', 'shop_source', 'shop', '{ api_key: "env:SHOP_KEY", pages: 3 }'),
        ...pipelineSource('catalog', 'catalog_loader', 'sql_database', `{ credentials: "env:PG_URL", schema: ${schema}, table_names: [products] }`),
        ...pipelineSource('erp', 'erp.orders', 'orders'),
        ...pipelineSource('broken', 'shop_source', 'broken', '{ token: "env:BROKEN_TOKEN" }'),
        ...pipelineSource('missing', 'no_such_module', 'run'),
        ...pipelineSource('installed', 'dlt.sources.sql_database', 'sql_database'),
        ...pipelineSource('shadowing', 'json', 'load', '{ marker: "env:MARKER_DIR" }'),
        ...pipelineSource('linked', 'linked', 'load', '{ marker: "env:MARKER_DIR" }'),
        ...pipelineSource('linked_submodule', 'erp.linked', 'load', '{ marker: "env:MARKER_DIR" }'),
        '',
      ].join('\n'),
      prepare: (dir) => {
        const pipelines = path.join(dir, 'pipelines');
        mkdirSync(path.join(pipelines, 'erp'), { recursive: true });
        writeFileSync(path.join(pipelines, 'shop_source.py'), PIPELINE_MODULE);
        writeFileSync(path.join(pipelines, 'catalog_loader.py'), SQL_LOADER_MODULE);
        writeFileSync(path.join(pipelines, 'erp', '__init__.py'), '');
        writeFileSync(path.join(pipelines, 'erp', 'orders.py'), ERP_ORDERS_MODULE);
        writeFileSync(path.join(pipelines, 'json.py'), MARKING_MODULE);
        symlinkSync(path.join(outside, 'elsewhere.py'), path.join(pipelines, 'linked.py'));
        symlinkSync(path.join(outside, 'elsewhere.py'), path.join(pipelines, 'erp', 'linked.py'));
        // The project root is not a place modules come from.
        writeFileSync(path.join(dir, 'no_such_module.py'), MARKING_MODULE);
      },
    });
  });

  afterAll(async () => {
    await quarry.close();
    rmSync(outside, { recursive: true, force: true });
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

  it('runs a submodule of a package of the pipelines folder', async () => {
    expect(await syncAndWait(quarry, 'erp')).toMatchObject({ type: 'sync_completed', rows: 2 });
    expect(await quarry.query('SELECT count(*) AS n FROM raw_erp.orders')).toEqual([{ n: 2 }]);
  });

  it('a failing source fails with one line, the secret masked', async () => {
    const broken = await syncAndWait(quarry, 'broken');
    const error = broken.type === 'sync_failed' ? broken.error : '';
    expect(error).toMatch(/^The pipeline failed: .*upstream said no to \*\*\*/);
    expect(JSON.stringify(await quarry.ctx.store.logs.latest(200))).not.toContain('tok-very-secret');
  });

  it.each([
    ['missing', "source_module no_such_module is not a module of the project: a native_pipeline runs only modules of the project's pipelines/ folder: put it in pipelines/no_such_module.py or pipelines/no_such_module/__init__.py"],
    ['installed', "source_module dlt.sources.sql_database is not a module of the project: a native_pipeline runs only modules of the project's pipelines/ folder: put it in pipelines/dlt.py or pipelines/dlt/__init__.py"],
    ['linked', 'source_module linked: pipelines/linked.py leads outside the pipelines/ folder'],
    ['linked_submodule', 'The module erp.linked is refused: its file leads outside the pipelines folder'],
    ['shadowing', "The module json is refused: json is a module of Python or an installed package, not of the project's pipelines folder; rename it"],
  ])('refuses the %s module without running any of it', async (name, message) => {
    expect(await syncAndWait(quarry, name)).toMatchObject({ type: 'sync_failed', error: message });
    expect(readdirSync(outside)).toEqual(['elsewhere.py']);
  });

  const shadowing = (module: string) => `The module ${module} is refused: ${module} is a module of Python or an installed package, not of the project's pipelines folder; rename it`;
  it.each([
    ['os', shadowing('os')],
    ['subprocess', shadowing('subprocess')],
    ['builtins', shadowing('builtins')],
    ['__main__', shadowing('__main__')],
    ['root_module', 'Cannot import the module root_module: the pipelines folder has no root_module.py or root_module/__init__.py'],
  ])('the runner itself imports %s neither from Python nor from the project root', async (module, message) => {
    const project = mkdtempSync(path.join(tmpdir(), 'quarry-runner-'));
    try {
      mkdirSync(path.join(project, 'pipelines'));
      // The same names in pipelines/ (Python's) and in the project root (the other): neither runs.
      if (module !== 'root_module') writeFileSync(path.join(project, 'pipelines', `${module}.py`), MARKING_MODULE);
      writeFileSync(path.join(project, 'root_module.py'), MARKING_MODULE);
      const request = {
        module, function: 'system', kwargs: { command: `touch ${path.join(outside, 'ran')}` }, pipelines_dir: path.join(project, 'pipelines'), work_dir: project,
      };
      const manifest = await runRunner(request, project, { MARKER_DIR: outside });
      expect(manifest).toEqual({ error: message });
      expect(readdirSync(outside)).toEqual(['elsewhere.py']);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});

/** Runs the pipeline runner as the connector does, with one request on stdin; its manifest, the last line it prints. */
async function runRunner(request: object, cwd: string, env: Record<string, string>): Promise<unknown> {
  const child = spawn(pythonExecutable('dlt'), [RUNNER], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
  child.stdin.end(JSON.stringify(request));
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  await once(child, 'close');
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
}
