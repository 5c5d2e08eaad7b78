import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { writeGeneratedFile } from './generated-file.ts';
import { stagingModelName } from './staging-models.ts';

describe('writeGeneratedFile', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'quarry-generated-'));
  const file = path.join(dir, 'models', 'stg_x.sql');
  afterEach(() => { rmSync(path.join(dir, 'models'), { recursive: true, force: true }); });
  afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

  it('writes a new file with its checksum, leaves it when nothing changed and rewrites it when the body changes', () => {
    expect(writeGeneratedFile(file, 'select 1\n', '--')).toBe('written');
    expect(readFileSync(file, 'utf8')).toMatch(/^-- quarry:generated checksum=[0-9a-f]{16}\nselect 1\n$/);
    expect(writeGeneratedFile(file, 'select 1\n', '--')).toBe('unchanged');
    expect(writeGeneratedFile(file, 'select 2\n', '--')).toBe('written');
    expect(readFileSync(file, 'utf8')).toContain('select 2');
  });

  it('never replaces a file the user edited or wrote', () => {
    writeGeneratedFile(file, 'select 1\n', '--');
    const edited = `${readFileSync(file, 'utf8')}where true\n`;
    writeFileSync(file, edited);
    expect(writeGeneratedFile(file, 'select 2\n', '--')).toBe('kept_user_edit');
    expect(readFileSync(file, 'utf8')).toBe(edited);
    writeFileSync(file, 'select 3\n');
    expect(writeGeneratedFile(file, 'select 2\n', '--')).toBe('kept_user_edit');
  });
});

describe('stagingModelName', () => {
  it('is stg_<source>__<table>, with anything but letters, digits and _ replaced', () => {
    expect(stagingModelName('shop', 'orders')).toBe('stg_shop__orders');
    expect(stagingModelName('crm', 'Deal-Stages v2')).toBe('stg_crm__deal_stages_v2');
  });
});
