import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configProblemsFrom, configProblemsOf } from '../../test/support/config-problems.ts';
import { loadSources } from '../sources/config/index.ts';
import { assertSourcesWithinProject } from '../sources/index.ts';
import { loadProjectConfig, projectPaths, resolveDataRoots, type ProjectPaths } from './index.ts';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function projectWith(projectYaml: string, sourcesYaml = 'sources: []\n'): ProjectPaths {
  const dir = mkdtempSync(path.join(tmpdir(), 'quarry-data-roots-'));
  directories.push(dir);
  mkdirSync(path.join(dir, '.quarry'));
  mkdirSync(path.join(dir, 'data'));
  writeFileSync(path.join(dir, '.quarry', 'project.yml'), `name: Roots\n${projectYaml}`);
  writeFileSync(path.join(dir, '.quarry', 'sources.yml'), sourcesYaml);
  return projectPaths(dir);
}

const rootsOf = (paths: ProjectPaths, env: Record<string, string> = {}) => resolveDataRoots(paths, loadProjectConfig(paths), env);

describe('data_roots in project.yml', () => {
  it('defaults to the project\'s data/ folder', () => {
    const paths = projectWith('');
    const roots = rootsOf(paths);
    expect(roots.named).toBe('data');
    expect(roots.problemWith(path.join(paths.dataDir, 'orders'))).toBeUndefined();
    expect(roots.problemWith(paths.root)).toMatch(/is outside the data roots \(data\)/);
  });

  it('refuses a root that is, holds or lies inside .quarry/, the warehouse or the Python environments', () => {
    const paths = projectWith(['data_roots:', '  - .', '  - .quarry', '  - /', '  - warehouse/data', '  - data/../.quarry/run', '  - /srv/envs/x', ''].join('\n'));
    expect(configProblemsFrom(() => rootsOf(paths, { QUARRY_PYTHON_ENVS_DIR: '/srv/envs' }))).toEqual([
      '.quarry/project.yml: data_roots[0]: "." overlaps the project\'s .quarry/ folder (configuration and secrets): a data root holds data files only',
      '.quarry/project.yml: data_roots[0]: "." overlaps the warehouse: a data root holds data files only',
      '.quarry/project.yml: data_roots[1]: ".quarry" overlaps the project\'s .quarry/ folder (configuration and secrets): a data root holds data files only',
      ...[
        'the project\'s .quarry/ folder (configuration and secrets)', 'the warehouse', 'Quarry\'s .tools/ (Python environments and tools)',
        'Quarry\'s python/envs/', 'the Python environments (QUARRY_PYTHON_ENVS_DIR)',
      ].map((what) => `.quarry/project.yml: data_roots[2]: "/" overlaps ${what}: a data root holds data files only`),
      '.quarry/project.yml: data_roots[3]: "warehouse/data" overlaps the warehouse: a data root holds data files only',
      '.quarry/project.yml: data_roots[4]: "data/../.quarry/run" overlaps the project\'s .quarry/ folder (configuration and secrets): a data root holds data files only',
      '.quarry/project.yml: data_roots[5]: "/srv/envs/x" overlaps the Python environments (QUARRY_PYTHON_ENVS_DIR): a data root holds data files only',
    ]);
  });

  it('follows symlinks: a root reached through a link to .quarry/ is refused, a file source through one to /etc is outside', () => {
    const paths = projectWith('data_roots: [data, shared]\n');
    symlinkSync(paths.configDir, path.join(paths.root, 'shared'));
    expect(configProblemsFrom(() => rootsOf(paths))).toEqual([
      '.quarry/project.yml: data_roots[1]: "shared" overlaps the project\'s .quarry/ folder (configuration and secrets): a data root holds data files only',
    ]);

    const plain = projectWith('');
    symlinkSync('/etc', path.join(plain.dataDir, 'etc'));
    expect(rootsOf(plain).problemWith(path.join(plain.dataDir, 'etc'))).toBe(
      `${path.join(plain.dataDir, 'etc')} is outside the data roots (data) (it leads to /etc): move the files into one, or have an admin add the folder to data_roots in .quarry/project.yml`,
    );
  });

  it('accepts an absolute root elsewhere on the machine', () => {
    const shared = mkdtempSync(path.join(tmpdir(), 'quarry-shared-'));
    directories.push(shared);
    const paths = projectWith(`data_roots: [data, ${JSON.stringify(shared)}]\n`);
    expect(rootsOf(paths).problemWith(path.join(shared, 'exports', 'new'))).toBeUndefined();
  });
});

describe('sources and what the project gives them', () => {
  it('names each source reading a folder outside the data roots, with its field', () => {
    const paths = projectWith('', [
      'sources:',
      '  - {name: inside, type: local_files, local_files: {directory: data/orders}}',
      '  - {name: root, type: local_files, local_files: {directory: /}}',
      '  - {name: config, type: local_files, local_files: {directory: data/../.quarry, file_pattern: "**/*.json"}}',
      '  - {name: uploads, type: csv, csv: {directory: /etc}}',
      '  - {name: drops, type: filesystem, filesystem: {bucket_url: "file:///etc"}}',
      '  - {name: lake, type: filesystem, filesystem: {bucket_url: "s3://bucket/data"}}',
      '',
    ].join('\n'));
    const outside = (directory: string) => `${directory} is outside the data roots (data): move the files into one, or have an admin add the folder to data_roots in .quarry/project.yml`;
    expect(configProblemsFrom(() => { assertSourcesWithinProject(paths, rootsOf(paths), loadSources(paths)); })).toEqual([
      `.quarry/sources.yml: sources[1].local_files.directory: ${outside('/')}`,
      `.quarry/sources.yml: sources[2].local_files.directory: ${outside(paths.configDir)}`,
      `.quarry/sources.yml: sources[3].csv.directory: ${outside('/etc')}`,
      `.quarry/sources.yml: sources[4].filesystem.bucket_url: ${outside('/etc')}`,
    ]);
  });

  it('refuses a file_pattern that climbs out of the folder', () => {
    expect(configProblemsOf([
      'sources:',
      '  - {name: up, type: local_files, local_files: {directory: data, file_pattern: "../.quarry/*.json"}}',
      '  - {name: deep, type: csv, csv: {directory: data, file_pattern: "a/../../*.csv"}}',
      '  - {name: absolute, type: filesystem, filesystem: {bucket_url: data, file_pattern: "/etc/*"}}',
      '',
    ].join('\n'))).toEqual([
      'sources.yml: sources[0].local_files.file_pattern: must stay inside the folder: no leading / and no .. in the pattern',
      'sources.yml: sources[1].csv.file_pattern: must stay inside the folder: no leading / and no .. in the pattern',
      'sources.yml: sources[2].filesystem.file_pattern: must stay inside the folder: no leading / and no .. in the pattern',
    ]);
  });
});
