import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

// Every generator that writes a dbt file from names an outsider chooses (a CSV header, an API's field
// name) gets the same hostile names. dbt renders staging models and sources YAML with Jinja, so a
// name that reached it verbatim would run as dbt code with the warehouse writer's rights.

/** Where the hostile names try to write; nothing may ever appear here. */
const outside = mkdtempSync(path.join(tmpdir(), 'quarry-injection-'));
const marker = (name: string): string => path.join(outside, name);

/**
 * Names that dbt would run as code, each writing a marker file. `execute` is false while dbt parses
 * (and undefined in YAML), so the code waits for the run, as an attacker's would.
 */
function executingNames(prefix: string): string[] {
  const copy = (file: string): string => `run_query('COPY (SELECT 42 AS x) TO \\'${marker(`${prefix}-${file}`)}\\'')`;
  return [
    `${prefix} {% if execute %}{% do ${copy('statement.csv')} %}{% endif %}`,
    `${prefix} {{ ${copy('expression.csv')} if execute else '' }}`,
    `${prefix} {# a comment #} kept`,
    `${prefix} {{ '{' }} looks escaped`,
  ];
}

/** Names that would leave dbt's parser with an unclosed block: the whole project would stop parsing. */
function unclosedNames(prefix: string): string[] {
  return [`${prefix} unclosed {# comment`, `${prefix} unclosed {{ expression`, `${prefix} {% endraw %} {% raw %}`];
}

/** Names that are hard to quote in SQL and YAML. */
function awkwardNames(prefix: string): string[] {
  return [
    `${prefix} it's "quoted"`,
    `${prefix} \`backticks\``,
    `${prefix} line\nbreak`,
    `${prefix} prix €/m² 日本 \u2028 sep \u0085 nel \u007f del`,
    `${prefix} back\\slash: - # yaml`,
  ];
}

function csvField(value: string): string {
  return `"${value.replaceAll('"', '""')}"`;
}

function csv(names: readonly string[]): string {
  return `${names.map(csvField).join(',')}\n${names.map((_name, index) => String(index)).join(',')}\n`;
}

const EXPLOIT_NAMES = ['id', ...executingNames('csv')];
const MALFORMED_NAMES = ['id', ...unclosedNames('csv'), ...awkwardNames('csv')];
const API_NAMES = ['id', ...executingNames('api'), ...unclosedNames('api'), ...awkwardNames('api')];

const SAFE_MART = 'select 1 as still_built';

let api: FakeApi;

beforeAll(async () => {
  api = await startFakeApi((app) => {
    app.get('/v1/things', () => ({ data: [Object.fromEntries(API_NAMES.map((name, index) => [name, index]))] }));
  });
});

afterAll(async () => {
  await api.close();
  rmSync(outside, { recursive: true, force: true });
});

function sourcesYaml(): string {
  return [
    'sources:',
    '  - name: uploads',
    '    type: local_files',
    '    local_files:',
    '      directory: data/uploads',
    '      file_pattern: "*.csv"',
    '  - name: malformed',
    '    type: local_files',
    '    local_files:',
    '      directory: data/malformed',
    '      file_pattern: "*.csv"',
    '  - name: vendor',
    '    type: rest_api',
    '    rest_api:',
    `      base_url: ${api.url}/v1`,
    '      auth_type: none',
    '      endpoints:',
    '        - path: /things',
    '          data_selector: data',
    '',
  ].join('\n');
}

function prepare(dir: string): void {
  for (const [folder, names] of [['uploads', EXPLOIT_NAMES], ['malformed', MALFORMED_NAMES]] as const) {
    mkdirSync(path.join(dir, 'data', folder), { recursive: true });
    writeFileSync(path.join(dir, 'data', folder, 'hostile.csv'), csv(names));
  }
  const marts = path.join(dir, 'transform', 'models', 'marts');
  mkdirSync(marts, { recursive: true });
  writeFileSync(path.join(marts, 'safe_mart.sql'), SAFE_MART);
}

async function columnsOf(quarry: TestQuarry, schema: string, table: string): Promise<string[]> {
  const rows = await quarry.query(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = '${schema}' AND table_name = '${table}' ORDER BY ordinal_position`,
  );
  return rows.map((row) => String(row.column_name));
}

describe('template injection through every generator of dbt files', () => {
  let quarry: TestQuarry;

  beforeAll(async () => {
    quarry = await startQuarry({ sourcesYaml: sourcesYaml(), transform: true, prepare });
    await quarry.ctx.transform.idle();
  });
  afterAll(async () => {
    await quarry.close();
  });

  for (const [source, table, names] of [['uploads', 'uploads', EXPLOIT_NAMES], ['malformed', 'malformed', MALFORMED_NAMES], ['vendor', 'things', API_NAMES]] as const) {
    it(`builds the staging view of ${source} with every hostile column name as plain text, running none of it`, async () => {
      expect(await syncAndWait(quarry, source)).toMatchObject({ type: 'sync_completed', rows: 1 });
      await quarry.ctx.transform.idle();
      expect(readdirSync(outside)).toEqual([]);
      const raw = await columnsOf(quarry, `raw_${source}`, table);
      for (const name of names) expect(raw).toContain(name);

      const model = `stg_${source}__${table}`;
      const models = await quarry.request('GET', '/api/transform/models', { as: 'viewer' });
      expect(models.json.models.find((entry: { name: string }) => entry.name === model)).toMatchObject({ status: 'success' });
      const staged = await columnsOf(quarry, 'staging', model);
      expect(staged).toEqual(raw);
      const [row] = await quarry.query(`SELECT * FROM staging.${model}`);
      for (const [index, name] of names.entries()) expect(String(row?.[name])).toBe(String(index));
    });
  }

  it('keeps every other model building after the hostile names arrived', async () => {
    const job = await quarry.ctx.transform.runAndWait('safe_mart', { cascade: false, requestedBy: 'test' });
    expect(job.status).toBe('success');
    expect(await quarry.query('SELECT still_built FROM marts.safe_mart')).toEqual([{ still_built: 1 }]);
  });

  it('writes no Jinja delimiter into a generated file but its source() call and its escaped braces', () => {
    const staging = path.join(quarry.dir, 'transform', 'models', 'staging');
    for (const source of readdirSync(staging)) {
      for (const file of readdirSync(path.join(staging, source))) {
        const text = readFileSync(path.join(staging, source, file), 'utf8');
        const unexpected = text.replaceAll(/\{\{ source\('[a-z0-9_]+', '[a-z0-9_]+'\) \}\}|\{\{ '\{' \}\}/g, '').match(/\{[{%#]/g);
        expect({ file, unexpected }).toEqual({ file, unexpected: null });
      }
    }
  });
});

describe('the dbt worker is sandboxed', () => {
  let quarry: TestQuarry;
  const copied = marker('model-copy.csv');

  beforeAll(async () => {
    quarry = await startQuarry({
      transform: true,
      prepare: (dir) => {
        const marts = path.join(dir, 'transform', 'models', 'marts');
        mkdirSync(marts, { recursive: true });
        writeFileSync(path.join(marts, 'reads_host.sql'), "select content from read_text('/etc/passwd')");
        writeFileSync(path.join(marts, 'writes_host.sql'), `{% do run_query("COPY (SELECT 1 AS x) TO '${copied}'") %}\nselect 1 as x`);
        writeFileSync(path.join(marts, 'reads_project.sql'), "select content from read_text('../.quarry/project.yml')");
      },
    });
    await quarry.ctx.transform.idle();
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('refuses a model that reads a file of the host or of the project', async () => {
    for (const model of ['reads_host', 'reads_project']) {
      const job = await quarry.ctx.transform.runAndWait(model, { cascade: false, requestedBy: 'test' });
      expect(job.status).toBe('failed');
      expect(job.error).toMatch(/disabled by configuration/);
    }
  });

  it('refuses a model that writes a file outside the warehouse', async () => {
    const job = await quarry.ctx.transform.runAndWait('writes_host', { cascade: false, requestedBy: 'test' });
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/disabled by configuration/);
    expect(existsSync(copied)).toBe(false);
  });
});
