import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

// Headers as spreadsheets export them: spaces, capitals, camelCase, punctuation, a leading digit, a word SQL
// reserves, accents and another script, a Jinja lookalike, and two that meet after conversion.
const HEADERS = ['Invoice ID', 'invoice_id', 'Customer Name', 'Amount (EUR)', 'dueDate', '1st Reminder', 'Order', 'Größe', 'Имя', "Note {{ 'x' }}", 'Comment'];
const SNAKE_CASE = ['invoice_id_2', 'invoice_id', 'customer_name', 'amount_eur', 'due_date', '_1st_reminder', 'order_', 'große', 'имя', 'note_x', 'comment'];
const QUARRY_COLUMNS = ['_quarry_file', '_quarry_loaded_at'];
const BILLS_CSV = `${HEADERS.map((header) => `"${header.replaceAll('"', '""')}"`).join(',')}
A-1,1,Ada,10.5,2026-01-31,2026-02-07,first,S,Ада,n1,
A-2,2,Grace,20,2026-02-28,2026-03-07,second,M,Грейс,n2,late
`;

function sourceEntry(name: string, naming: string | undefined): string {
  return [
    `  - name: ${name}`,
    '    type: local_files',
    ...(naming === undefined ? [] : [`    staging_column_names: ${naming}`]),
    '    local_files:',
    '      directory: data/bills',
    '      file_pattern: "*.csv"',
  ].join('\n');
}

async function columnsOf(quarry: TestQuarry, schema: string, table: string): Promise<string[]> {
  const rows = await quarry.query(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = '${schema}' AND table_name = '${table}' ORDER BY ordinal_position`,
  );
  return rows.map((row) => String(row.column_name));
}

describe('staging models with snake_case column names', () => {
  let quarry: TestQuarry;

  beforeAll(async () => {
    quarry = await startQuarry({
      sourcesYaml: `sources:\n${sourceEntry('bills', 'snake_case')}\n${sourceEntry('legacy', undefined)}\n`,
      transform: true,
      prepare: (dir) => {
        mkdirSync(path.join(dir, 'data', 'bills'), { recursive: true });
        writeFileSync(path.join(dir, 'data', 'bills', 'bills.csv'), BILLS_CSV);
      },
    });
    await quarry.ctx.transform.idle();
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('keeps the original names in raw and exposes snake_case ones in staging, with not_null tests on them', async () => {
    expect(await syncAndWait(quarry, 'bills')).toMatchObject({ type: 'sync_completed', rows: 2 });
    await quarry.ctx.transform.idle();
    expect(await columnsOf(quarry, 'raw_bills', 'bills')).toEqual([...HEADERS, ...QUARRY_COLUMNS]);
    expect(await columnsOf(quarry, 'staging', 'stg_bills__bills')).toEqual([...SNAKE_CASE, ...QUARRY_COLUMNS]);
    const sql = readFileSync(path.join(quarry.dir, 'transform', 'models', 'staging', 'bills', 'stg_bills__bills.sql'), 'utf8');
    expect(sql).toContain('    "Invoice ID" as invoice_id_2,\n    "invoice_id",\n    "Customer Name" as customer_name,\n');

    const model = (await quarry.ctx.transform.loadModels()).find((candidate) => candidate.name === 'stg_bills__bills');
    // Every column but comment (a null in the first row) is tested, the two of Quarry's own included.
    expect(model).toMatchObject({ status: 'success', tests: { passed: SNAKE_CASE.length - 1 + QUARRY_COLUMNS.length, failed: 0, warned: 0 } });
    const tests = (await quarry.ctx.transform.listTests()).filter((test) => test.model === 'stg_bills__bills');
    expect(tests.map((test) => [test.type, test.column])).toEqual(expect.arrayContaining(
      [...SNAKE_CASE.filter((name) => name !== 'comment'), ...QUARRY_COLUMNS].map((name) => ['not_null', name]),
    ));
    expect(tests.every((test) => test.status === 'pass')).toBe(true);
  });

  it('lets a model select the staging columns without quoting them', async () => {
    const marts = path.join(quarry.dir, 'transform', 'models', 'marts');
    mkdirSync(marts, { recursive: true });
    writeFileSync(path.join(marts, 'bill_list.sql'), `select
    invoice_id_2 as invoice, invoice_id, customer_name, amount_eur, due_date, _1st_reminder, order_, große, имя, note_x
from {{ ref('stg_bills__bills') }}
order by invoice_id
`);
    const job = await quarry.ctx.transform.runAndWait('bill_list', { cascade: false, requestedBy: 'test' });
    expect(job).toMatchObject({ status: 'success' });
    const rows = await quarry.query('SELECT invoice, invoice_id, customer_name, amount_eur, order_, große, имя, note_x FROM marts.bill_list');
    expect(rows).toEqual([
      { invoice: 'A-1', invoice_id: 1, customer_name: 'Ada', amount_eur: 10.5, order_: 'first', große: 'S', имя: 'Ада', note_x: 'n1' },
      { invoice: 'A-2', invoice_id: 2, customer_name: 'Grace', amount_eur: 20, order_: 'second', große: 'M', имя: 'Грейс', note_x: 'n2' },
    ]);
  });

  it('keeps the original names in the staging model of a source that does not ask for snake_case', async () => {
    expect(await syncAndWait(quarry, 'legacy')).toMatchObject({ type: 'sync_completed', rows: 2 });
    await quarry.ctx.transform.idle();
    expect(await columnsOf(quarry, 'staging', 'stg_legacy__legacy')).toEqual([...HEADERS, ...QUARRY_COLUMNS]);
    const model = (await quarry.ctx.transform.loadModels()).find((candidate) => candidate.name === 'stg_legacy__legacy');
    expect(model).toMatchObject({ status: 'success' });
  });
});
