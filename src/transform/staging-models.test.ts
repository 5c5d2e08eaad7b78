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
    writeStagingModels(dir, 'shop', [{ schema: 'raw_shop', name: 'orders', columns: ['id', 'note', 'amount'], notNull: ['id', 'amount'], uniqueKey: 'id' }]);
    const yaml = parse(readFileSync(yamlFile, 'utf8')) as { models: { name: string; columns: { name: string; data_tests?: string[] }[] }[] };
    expect(yaml.models[0]?.columns).toEqual([
      { name: 'id', data_tests: ['not_null', 'unique'] }, { name: 'note' }, { name: 'amount', data_tests: ['not_null'] },
    ]);
    expect(readFileSync(yamlFile, 'utf8')).toMatch(/^# quarry:generated checksum=/);
    expect(generatedNotNullColumns(dir, 'shop')).toEqual(new Map([['stg_shop__orders', new Set(['id', 'amount'])]]));

    writeStagingModels(dir, 'odd', [{ schema: 'raw_odd', name: 't', columns: ['a b', "x') or 1=1 --"], notNull: ['a b', "x') or 1=1 --"], uniqueKey: 'a b' }]);
    expect(readFileSync(path.join(dir, 'models', 'staging', 'odd', '_odd__sources.yml'), 'utf8')).not.toContain('data_tests');

    writeFileSync(yamlFile, `${readFileSync(yamlFile, 'utf8')}# mine now\n`);
    expect(generatedNotNullColumns(dir, 'shop')).toEqual(new Map());
    const outcomes = writeStagingModels(dir, 'shop', [{ schema: 'raw_shop', name: 'orders', columns: ['id'], notNull: [] }]);
    expect(outcomes['_shop__sources.yml']).toBe('kept_user_edit');
  });
});
