import { realpathSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, InvalidRequestError } from '../errors.ts';
import { formatProblem } from './format-issues.ts';
import type { ProjectConfig } from './project-config.ts';
import type { ProjectPaths } from './project-paths.ts';

const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '..', '..');

export class OutsideDataRootsError extends InvalidRequestError {
  override readonly code = 'outside_data_roots';
}

/**
 * The folders file sources may read and uploads may write (project.yml's `data_roots`), each as its real path,
 * so a symlink cannot lead a source from inside one to a file elsewhere on the machine.
 */
export class DataRoots {
  readonly #roots: readonly string[];
  /** The roots as project.yml names them, for messages: `data, /srv/exports`. */
  readonly named: string;

  constructor(realRoots: readonly string[], named: string) {
    this.#roots = realRoots;
    this.named = named;
  }

  /** Whether a real path (symlinks already followed) lies in a data root. */
  contains(realPath: string): boolean {
    return this.#roots.some((root) => realPath === root || isInside(realPath, root));
  }

  /** Why `folder` (absolute) may not be read or written, or undefined when it lies in a data root once symlinks are followed. */
  problemWith(folder: string): string | undefined {
    const real = realPathOf(folder);
    if (this.contains(real)) return undefined;
    const leads = real === path.resolve(folder) ? '' : ` (it leads to ${real})`;
    return `${folder} is outside the data roots (${this.named})${leads}: move the files into one, or have an admin add the folder to data_roots in .quarry/project.yml`;
  }

  /** Throws OutsideDataRootsError (400) unless `folder` lies in a data root. */
  assertContains(folder: string): void {
    const problem = this.problemWith(folder);
    if (problem !== undefined) throw new OutsideDataRootsError(problem);
  }
}

/**
 * The project's data roots, resolved; a ConfigError of project.yml when one is, holds or lies inside a part of
 * the platform no source may read: the configuration and secrets, the warehouse, the Python environments.
 */
export function resolveDataRoots(paths: ProjectPaths, config: ProjectConfig, env: Readonly<Record<string, string | undefined>>): DataRoots {
  const privateParts: [string, string][] = [
    [paths.configDir, 'the project\'s .quarry/ folder (configuration and secrets)'],
    [paths.warehouseDir, 'the warehouse'],
    ...(config.warehouse.data_path === undefined ? [] : [[config.warehouse.data_path, 'the lake\'s data_path'] as [string, string]]),
    [path.join(REPOSITORY_ROOT, '.tools'), 'Quarry\'s .tools/ (Python environments and tools)'],
    [path.join(REPOSITORY_ROOT, 'python', 'envs'), 'Quarry\'s python/envs/'],
    ...(env.QUARRY_PYTHON_ENVS_DIR === undefined ? [] : [[env.QUARRY_PYTHON_ENVS_DIR, 'the Python environments (QUARRY_PYTHON_ENVS_DIR)'] as [string, string]]),
  ];
  const privateReal = privateParts.map(([folder, what]) => [realPathOf(path.resolve(paths.root, folder)), what] as const);
  const label = path.relative(paths.root, paths.projectFile);
  const problems: string[] = [];
  const roots = config.data_roots.map((entry, index) => {
    const real = realPathOf(path.resolve(paths.root, entry));
    for (const [part, what] of privateReal) {
      if (real === part || isInside(part, real) || isInside(real, part)) {
        problems.push(formatProblem(label, ['data_roots', index], `${JSON.stringify(entry)} overlaps ${what}: a data root holds data files only`));
      }
    }
    return real;
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return new DataRoots(roots, config.data_roots.join(', '));
}

/** The real path of `target`: symlinks followed, and a part that does not exist yet taken as written. */
export function realPathOf(target: string): string {
  const absolute = path.resolve(target);
  try {
    return realpathSync(absolute);
  } catch (error) {
    const parent = path.dirname(absolute);
    if (!isMissing(error) || parent === absolute) return absolute;
    return path.join(realPathOf(parent), path.basename(absolute));
  }
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && (error.code === 'ENOENT' || error.code === 'ENOTDIR');
}

function isInside(candidate: string, folder: string): boolean {
  const relative = path.relative(folder, candidate);
  return relative !== '' && relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}
