import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generatedNotNullColumns, writeStagingModels } from './staging-models.ts';

describe('generated tests of the staging models', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'quarry-staging-tests-'));
  const yamlFile = path.join(dir, 'models', 'staging', 'shop', '_shop__sources.yml');
  afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

  it('writes not_null and unique tests into the checksummed YAML, reads them back, and leaves an edited file alone', () => {
    writeStagingModels(dir, 'shop', [{ schema: 'raw_shop', name: 'orders', columns: ['id', 'note', 'amount'], notNull: ['id', 'amount'], uniqueKey: 'id' }], 'original');
    const yaml = parse(readFileSync(yamlFile, 'utf8')) as { models: { name: string; columns: { name: string; data_tests?: string[] }[] }[] };
    expect(yaml.models[0]?.columns).toEqual([
      { name: 'id', data_tests: ['not_null', 'unique'] }, { name: 'note' }, { name: 'amount', data_tests: ['not_null'] },
    ]);
    expect(readFileSync(yamlFile, 'utf8')).toMatch(/^# quarry:generated checksum=/);
    expect(generatedNotNullColumns(dir, 'shop')).toEqual(new Map([['stg_shop__orders', new Set(['id', 'amount'])]]));

    writeStagingModels(dir, 'odd', [{ schema: 'raw_odd', name: 't', columns: ['a b', "x') or 1=1 --"], notNull: ['a b', "x') or 1=1 --"], uniqueKey: 'a b' }], 'original');
    expect(readFileSync(path.join(dir, 'models', 'staging', 'odd', '_odd__sources.yml'), 'utf8')).not.toContain('data_tests');

    writeFileSync(yamlFile, `${readFileSync(yamlFile, 'utf8')}# mine now\n`);
    expect(generatedNotNullColumns(dir, 'shop')).toEqual(new Map());
    const outcomes = writeStagingModels(dir, 'shop', [{ schema: 'raw_shop', name: 'orders', columns: ['id'], notNull: [] }], 'original');
    expect(outcomes['_shop__sources.yml']).toBe('kept_user_edit');
  });

  it('names the columns in snake_case, aliasing each raw name, and tests those names', () => {
    const table = {
      schema: 'raw_bills', name: 'Invoices', columns: ['Invoice ID', 'invoice_id', 'Amount (EUR)', 'note', "x') {{ 'y' }}"],
      notNull: ['Invoice ID', 'Amount (EUR)', "x') {{ 'y' }}"], uniqueKey: 'Invoice ID',
    };
    const outcomes = writeStagingModels(dir, 'bills', [table], 'snake_case');
    expect(outcomes).toEqual({ '_bills__sources.yml': 'written', stg_bills__invoices: 'written' });
    const modelFile = path.join(dir, 'models', 'staging', 'bills', 'stg_bills__invoices.sql');
    expect(readFileSync(modelFile, 'utf8')).toContain([
      'select',
      '    "Invoice ID" as invoice_id_2,',
      '    "invoice_id",',
      '    "Amount (EUR)" as amount_eur,',
      '    "note",',
      `    "x') {{ '{' }}{{ '{' }} 'y' }}" as x_y`,
      "from {{ source('bills', 'Invoices') }}",
    ].join('\n'));
    const yaml = parse(readFileSync(path.join(dir, 'models', 'staging', 'bills', '_bills__sources.yml'), 'utf8')) as {
      models: { columns: { name: string; data_tests?: string[] }[] }[];
    };
    expect(yaml.models[0]?.columns).toEqual([
      { name: 'invoice_id_2', data_tests: ['not_null', 'unique'] }, { name: 'invoice_id' },
      { name: 'amount_eur', data_tests: ['not_null'] }, { name: 'note' }, { name: 'x_y', data_tests: ['not_null'] },
    ]);
    expect(generatedNotNullColumns(dir, 'bills')).toEqual(new Map([['stg_bills__invoices', new Set(['invoice_id_2', 'amount_eur', 'x_y'])]]));

    const edited = `${readFileSync(modelFile, 'utf8')}where amount_eur > 0\n`;
    writeFileSync(modelFile, edited);
    expect(writeStagingModels(dir, 'bills', [table], 'original').stg_bills__invoices).toBe('kept_user_edit');
    expect(readFileSync(modelFile, 'utf8')).toBe(edited);
  });
});
