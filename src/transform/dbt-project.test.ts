import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { captureLog } from '../../test/support/captured-log.ts';
import { projectPaths } from '../config/index.ts';
import { ensureDbtProject } from './dbt-project.ts';

// dbt_project.yml as Quarry wrote it before seeds, snapshots and stored test failures.
const EARLIER_VERSION = `# The dbt project of this Quarry project.
name: quarry
version: "1.0.0"
config-version: 2
profile: quarry
model-paths: ["models"]
models:
  quarry:
    staging:
      +schema: staging # one view per raw table
      +materialized: view
`;

describe('ensureDbtProject', () => {
  let root: string | undefined;
  afterEach(() => { if (root !== undefined) rmSync(root, { recursive: true, force: true }); });

  function projectWith(dbtProjectYml: string): { file: string; paths: ReturnType<typeof projectPaths> } {
    root = mkdtempSync(path.join(tmpdir(), 'quarry-dbt-project-'));
    const paths = projectPaths(root);
    mkdirSync(paths.transformDir, { recursive: true });
    const file = path.join(paths.transformDir, 'dbt_project.yml');
    writeFileSync(file, dbtProjectYml);
    return { file, paths };
  }

  it("gives an earlier version's dbt_project.yml the settings runs need, keeping its comments, once", () => {
    const { file, paths } = projectWith(EARLIER_VERSION);
    const captured = captureLog();
    ensureDbtProject(paths, captured.log);
    const upgraded = readFileSync(file, 'utf8');
    expect(parse(upgraded)).toMatchObject({
      models: { quarry: { staging: { '+schema': 'staging' } } },
      seeds: { quarry: { '+fast': false } },
      data_tests: { quarry: { '+schema': 'test_failures' } },
    });
    expect(upgraded).toContain('# The dbt project of this Quarry project.');
    expect(upgraded).toContain('+schema: staging # one view per raw table');
    expect(captured.records().filter((record) => record.msg.startsWith('dbt_project.yml was given'))).toHaveLength(1);
    ensureDbtProject(paths, captured.log);
    expect(readFileSync(file, 'utf8')).toBe(upgraded);
    expect(captured.records().filter((record) => record.msg.startsWith('dbt_project.yml was given'))).toHaveLength(1);
  });

  it('never changes a setting the user made, and follows a renamed project', () => {
    const { file, paths } = projectWith(`${EARLIER_VERSION.replace('name: quarry', 'name: shop')}seeds:\n  shop:\n    +fast: true\n`);
    ensureDbtProject(paths);
    expect(parse(readFileSync(file, 'utf8'))).toMatchObject({
      seeds: { shop: { '+fast': true } },
      data_tests: { shop: { '+schema': 'test_failures' } },
    });
  });

  it('leaves a file dbt cannot read either, and a section that is not a mapping, as they are', () => {
    const broken = `${EARLIER_VERSION}seeds: [oops\n`;
    const { file, paths } = projectWith(broken);
    ensureDbtProject(paths);
    expect(readFileSync(file, 'utf8')).toBe(broken);
    writeFileSync(file, `${EARLIER_VERSION}seeds: 3\n`);
    const captured = captureLog();
    ensureDbtProject(paths, captured.log);
    expect(parse(readFileSync(file, 'utf8'))).toMatchObject({ seeds: 3, data_tests: { quarry: { '+schema': 'test_failures' } } });
    expect(captured.records().some((record) => record.msg.includes('add it by hand'))).toBe(true);
  });

  it('writes a whole new project whose dbt_project.yml needs nothing added', () => {
    root = mkdtempSync(path.join(tmpdir(), 'quarry-dbt-project-'));
    const paths = projectPaths(root);
    const captured = captureLog();
    ensureDbtProject(paths, captured.log);
    expect(parse(readFileSync(path.join(paths.transformDir, 'dbt_project.yml'), 'utf8'))).toMatchObject({
      seeds: { quarry: { '+fast': false } }, data_tests: { quarry: { '+schema': 'test_failures' } },
    });
    expect(captured.records()).toEqual([]);
  });
});
